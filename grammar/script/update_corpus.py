#!/usr/bin/env python3
"""Regenerate expected S-expressions (with field names) in test/corpus/*.txt.

Usage: script/update_corpus.py [FILE...]   (run from the grammar directory)
Only for tests whose trees have been reviewed by hand afterwards.
"""
import os, re, subprocess, sys, tempfile

TS = os.path.expanduser('~/.cargo/bin/tree-sitter')
# Optional: a program printing the pretty s-expression of a file (as produced by
# the Rust binding's `to_sexp`, which also shows MISSING / UNEXPECTED nodes).
SEXP_TOOL = os.environ.get('SEXP_TOOL')

def parse(src):
    with tempfile.NamedTemporaryFile('w', suffix='.lean', delete=False) as f:
        f.write(src)
        name = f.name
    if SEXP_TOOL:
        out = subprocess.run([SEXP_TOOL, name], capture_output=True, text=True).stdout
    else:
        out = subprocess.run([TS, 'parse', '--no-ranges', name], capture_output=True, text=True).stdout
    os.unlink(name)
    lines = [l for l in out.split('\n') if not l.startswith(name) and l.strip()]
    return '\n'.join(lines)

def update(path):
    text = open(path).read()
    parts = re.split(r'(?m)^(={3,}\n(?:.+\n)+?={3,}\n)', text)
    out = [parts[0]]
    for i in range(1, len(parts), 2):
        header, body = parts[i], parts[i + 1]
        m = re.search(r'(?m)^-{3,}\n', body)
        src = body[:m.start()]
        inp = src[1:] if src.startswith('\n') else src
        inp = inp[:-1] if inp.endswith('\n') else inp
        if ':skip' in header or ':error' in header or ':keep' in header:
            out.append(header + body)
            continue
        sexp = parse(inp)
        out.append(header + src + '---\n\n' + sexp + '\n\n')
    open(path, 'w').write(''.join(out).rstrip('\n') + '\n')

files = sys.argv[1:] or [os.path.join('test/corpus', f) for f in sorted(os.listdir('test/corpus'))]
for f in files:
    update(f)
    print('updated', f)
