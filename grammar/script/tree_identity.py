#!/usr/bin/env python3
"""Fingerprint every file's syntax tree, to check that a scanner or grammar change that should
not change behaviour changes no tree.

Usage: script/tree_identity.py MF OUT DIR...       write one line per file: sha256 of its tree
       script/tree_identity.py --compare OLD NEW    list the files whose trees differ

MF is an `mf` binary; its `mf parse` prints each file's S-expression (MISSING and UNEXPECTED
nodes included) after a `;; PATH` line. Run it with the build before and after the change.
"""
import hashlib, subprocess, sys


def fingerprint(mf, out, dirs):
    count = 0
    with open(out, 'w') as w:
        for d in dirs:
            proc = subprocess.Popen([mf, 'parse', '--color', 'never', '-q', d],
                                    stdout=subprocess.PIPE)
            path, h = None, None
            for line in proc.stdout:
                if line.startswith(b';; '):
                    if path is not None:
                        w.write(f'{h.hexdigest()} {path}\n')
                        count += 1
                    path, h = line[3:].rstrip(b'\n').decode('utf-8', 'replace'), hashlib.sha256()
                elif h is not None:
                    h.update(line)
            if path is not None:
                w.write(f'{h.hexdigest()} {path}\n')
                count += 1
            proc.wait()
    print(f'{count} files fingerprinted into {out}')


def compare(old, new):
    def load(p):
        return {l.split(' ', 1)[1].rstrip('\n'): l.split(' ', 1)[0] for l in open(p)}
    a, b = load(old), load(new)
    differ = sorted(p for p in a.keys() & b.keys() if a[p] != b[p])
    only = sorted(a.keys() ^ b.keys())
    for p in differ:
        print('DIFFERS', p)
    for p in only:
        print('ONLY IN ONE', p)
    print(f'{len(a.keys() & b.keys())} files in both, {len(differ)} differ, {len(only)} in one only')
    return 1 if differ or only else 0


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == '--compare':
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    if len(sys.argv) >= 4:
        fingerprint(sys.argv[1], sys.argv[2], sys.argv[3:])
    else:
        sys.exit(__doc__)
