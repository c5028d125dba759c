//! Data flows one way (bytes → syntax tree → outline → findings → knowledge.db → queries) and a
//! module knows only its neighbours: the modules of `src/` may not depend on each other in a
//! loop. A loop means two modules share a piece that belongs to neither (it goes to the module
//! that owns it).
//!
//! The check reads the source, not the compiler: each file under `src/` (but `src/bin/`) is a
//! module; a module depends on every module whose path it names (`crate::…`, `super::…`,
//! `self::…`, a child's name, in `use` items and in code; comments, strings and
//! `#[cfg(test)] mod … { … }` blocks are left out). A name that a module re-exports
//! (`pub use`) counts as a dependency on the module that defines it. A module naming its own
//! ancestor is not counted: a parent is the facade of its children and may hold what they
//! share (`kb::Kb`, `hook::Outcome`), so only loops among modules that are not one another's
//! ancestors are reported.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::path::Path;

type Module = Vec<String>;

#[test]
fn the_modules_of_src_depend_on_each_other_without_loops() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = Graph::read(&src);
    assert!(
        graph.modules.len() > 50 && graph.edges.values().map(BTreeMap::len).sum::<usize>() > 100,
        "the check read {} modules and found too few dependencies: it is broken",
        graph.modules.len()
    );
    let loops = graph.loops();
    assert!(
        loops.is_empty(),
        "dependency loops among the modules of src/ (move the shared piece to the module that \
         owns it):\n{}",
        loops.join("\n")
    );
}

/// The check itself, on a small tree: it must find a loop through `use`, a bare child path and
/// a re-export, and leave a child's use of its parent alone.
#[test]
fn the_check_finds_loops_and_allows_a_child_to_use_its_parent() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write("lib.rs", "pub mod a;\npub mod b;\npub mod files;\n");
    write(
        "a/mod.rs",
        "pub mod x;\npub mod y;\npub use y::Thing;\npub fn shared() {}\n\
         pub fn run() { x::go() }\n",
    );
    write(
        "a/x.rs",
        "// crate::b::never is a comment\nuse super::{shared, Thing};\n\
         pub fn go() { shared(); let _ = \"crate::files::no\"; }\n",
    );
    write(
        "a/y.rs",
        "pub struct Thing;\npub fn f() { crate::files::read() }\n",
    );
    write(
        "files.rs",
        "pub fn read() {}\n#[cfg(test)]\nmod tests { use crate::b::helper; }\n",
    );
    write("b.rs", "pub fn helper() { crate::a::run() }\n");
    let graph = Graph::read(dir.path());
    let edges = |m: &str| -> Vec<String> { graph.edges[&module(m)].keys().map(name).collect() };
    assert_eq!(edges("a"), ["a::x", "a::y"]);
    // `super::Thing` is `a::y`'s, re-exported by `a`; `shared` is the parent's own.
    assert_eq!(edges("a::x"), ["a::y"]);
    assert_eq!(edges("a::y"), ["files"]);
    assert!(edges("files").is_empty(), "test modules are left out");
    assert!(graph.loops().is_empty(), "{:?}", graph.loops());

    write("files.rs", "pub fn read() { crate::b::helper() }\n");
    write("b.rs", "use crate::a;\npub fn helper() { a::run() }\n");
    let loops = Graph::read(dir.path()).loops();
    assert_eq!(loops.len(), 1, "{loops:?}");
    assert!(
        loops[0].contains("-> files (crate::files::read) -> b (crate::b::helper) -> a (crate::a)"),
        "{}",
        loops[0]
    );

    // Without b's use of a, the loop is gone.
    write("b.rs", "pub fn helper() {}\n");
    assert!(Graph::read(dir.path()).loops().is_empty());
}

fn module(s: &str) -> Module {
    s.split("::").map(str::to_string).collect()
}

fn name(m: &Module) -> String {
    if m.is_empty() {
        "crate".into()
    } else {
        m.join("::")
    }
}

struct Graph {
    /// Each module's code, comments and strings left out.
    modules: BTreeMap<Module, String>,
    /// Each module's dependencies, each with the first path that showed it.
    edges: BTreeMap<Module, BTreeMap<Module, String>>,
}

impl Graph {
    fn read(src: &Path) -> Graph {
        let mut modules = BTreeMap::new();
        let mut stack = vec![src.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let rel = path.strip_prefix(src).unwrap();
                if path.is_dir() {
                    if rel != Path::new("bin") {
                        stack.push(path);
                    }
                    continue;
                }
                if path.extension().is_none_or(|e| e != "rs") {
                    continue;
                }
                let mut m: Module = rel
                    .with_extension("")
                    .iter()
                    .map(|s| s.to_string_lossy().into_owned())
                    .collect();
                if matches!(m.last().map(String::as_str), Some("mod" | "lib")) {
                    m.pop();
                }
                let text = std::fs::read_to_string(&path).unwrap();
                modules.insert(m, without_test_modules(&code_only(&text)));
            }
        }
        // `pub use` items: (module, name) → the path it stands for.
        let mut reexports: HashMap<(Module, String), String> = HashMap::new();
        for (m, code) in &modules {
            for (at, _) in code.match_indices("use ") {
                let before = code[..at].trim_end();
                let word_start =
                    at == 0 || !code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_');
                if !word_start || !(before.ends_with("pub") || before.ends_with(')')) {
                    continue;
                }
                let end = at + code[at..].find(';').unwrap_or(code.len() - at);
                for (path, alias) in use_tree(code[at + 4..end].trim()) {
                    reexports.insert((m.clone(), alias), path);
                }
            }
        }
        let mut edges = BTreeMap::new();
        for (m, code) in &modules {
            let children: BTreeSet<&str> = modules
                .keys()
                .filter(|k| k.len() == m.len() + 1 && k.starts_with(m))
                .map(|k| k.last().unwrap().as_str())
                .collect();
            let mut out: BTreeMap<Module, String> = BTreeMap::new();
            for path in paths(code, &children) {
                let target = resolve(&modules, &reexports, m, &path, 0);
                // A module's own ancestors (and itself) are not dependencies.
                if !m.starts_with(&target) {
                    out.entry(target).or_insert(path);
                }
            }
            edges.insert(m.clone(), out);
        }
        Graph { modules, edges }
    }

    /// One line per loop: `a -> b (the path) -> … -> a`.
    fn loops(&self) -> Vec<String> {
        let reach = |from: &Module| -> BTreeMap<Module, Module> {
            // Each reached module with the one it was reached from.
            let mut seen: BTreeMap<Module, Module> = BTreeMap::new();
            let mut queue = VecDeque::from([from.clone()]);
            while let Some(m) = queue.pop_front() {
                for next in self.edges.get(&m).into_iter().flat_map(BTreeMap::keys) {
                    if !seen.contains_key(next) {
                        seen.insert(next.clone(), m.clone());
                        queue.push_back(next.clone());
                    }
                }
            }
            seen
        };
        let mut reported: BTreeSet<Module> = BTreeSet::new();
        let mut out = Vec::new();
        for m in self.edges.keys() {
            if reported.contains(m) {
                continue;
            }
            let seen = reach(m);
            let Some(_) = seen.get(m) else { continue };
            // The shortest way back to `m`, followed backwards.
            let mut way = vec![m.clone()];
            let mut at = seen[m].clone();
            while &at != m {
                way.push(at.clone());
                at = seen[&at].clone();
            }
            way.push(m.clone());
            way.reverse();
            let mut line = name(m);
            for pair in way.windows(2) {
                line.push_str(&format!(
                    " -> {} ({})",
                    name(&pair[1]),
                    self.edges[&pair[0]][&pair[1]]
                ));
            }
            // The rest of its strongly connected part is the same loop, or one through it.
            for other in seen.keys() {
                if reach(other).contains_key(m) {
                    reported.insert(other.clone());
                }
            }
            out.push(line);
        }
        out
    }
}

/// The module a path names: as deep as modules go, then through a re-export of the name.
fn resolve(
    modules: &BTreeMap<Module, String>,
    reexports: &HashMap<(Module, String), String>,
    from: &Module,
    path: &str,
    depth: usize,
) -> Module {
    let mut segments = path.split("::").peekable();
    let mut at: Module = match segments.peek() {
        Some(&"crate") => {
            segments.next();
            Vec::new()
        }
        _ => from.clone(),
    };
    while let Some(&s) = segments.peek() {
        match s {
            "self" => {}
            "super" => {
                at.pop();
            }
            _ => break,
        }
        segments.next();
    }
    for s in segments {
        let mut deeper = at.clone();
        deeper.push(s.to_string());
        if modules.contains_key(&deeper) {
            at = deeper;
            continue;
        }
        if let Some(to) = reexports.get(&(at.clone(), s.to_string())) {
            if depth < 8 {
                return resolve(modules, reexports, &at, to, depth + 1);
            }
        }
        break;
    }
    at
}

/// Module paths in code: those starting with `crate`, `super`, `self` or one of `children`,
/// followed by `::`, with `use` groups (`a::{b, c::{self, D}}`) spelled out.
fn paths(code: &str, children: &BTreeSet<&str>) -> Vec<String> {
    let b = code.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !ident(b[i]) || (i > 0 && (ident(b[i - 1]) || b[i - 1] == b':' || b[i - 1] == b'.')) {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < b.len() && ident(b[j]) {
            j += 1;
        }
        let word = &code[i..j];
        let rest = code[j..].trim_start();
        if rest.starts_with("::")
            && (matches!(word, "crate" | "super" | "self") || children.contains(word))
        {
            let (text, used) = path_text(&code[i..]);
            out.extend(use_tree(&text).into_iter().map(|(p, _)| p));
            i += used;
        } else {
            i = j;
        }
    }
    out
}

/// The text of the path at the start of `s` (with its braces), and how many bytes it took.
fn path_text(s: &str) -> (String, usize) {
    let mut depth = 0usize;
    let mut text = String::new();
    for (k, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth > 0 => depth -= 1,
            c if depth > 0 => {
                text.push(c);
                continue;
            }
            c if c.is_alphanumeric() || c == '_' || c == ':' || c == '*' => {}
            c if c.is_whitespace() && s[k..].trim_start().starts_with("::") => continue,
            c if c.is_whitespace() && text.ends_with("::") => continue,
            _ => return (text, k),
        }
        text.push(c);
    }
    (text, s.len())
}

/// The leaf paths of a `use` tree, each with the name it brings in.
fn use_tree(tree: &str) -> Vec<(String, String)> {
    let tree: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    expand("", &tree, &mut out);
    out
}

fn expand(prefix: &str, tree: &str, out: &mut Vec<(String, String)>) {
    let join = |a: &str, b: &str| {
        if a.is_empty() {
            b.to_string()
        } else {
            format!("{a}::{b}")
        }
    };
    for item in split_top(tree) {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        if let Some(open) = item.find('{') {
            let head = item[..open].trim().trim_end_matches("::").replace(' ', "");
            let inner = &item[open + 1..item.rfind('}').unwrap_or(item.len())];
            expand(&join(prefix, &head), inner, out);
            continue;
        }
        let (path, alias) = match item.split_once(" as ") {
            Some((p, a)) => (p.trim(), a.trim().to_string()),
            None => (item, item.rsplit("::").next().unwrap_or(item).to_string()),
        };
        let path = path.replace(' ', "");
        if path == "self" {
            let alias = prefix.rsplit("::").next().unwrap_or(prefix).to_string();
            out.push((prefix.to_string(), alias));
        } else {
            out.push((join(prefix, &path), alias));
        }
    }
}

/// Splits at the commas outside braces.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (k, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(&s[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// The text without comments, string and character literals (each becomes a space).
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    while i < b.len() {
        let rest = &text[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            let mut depth = 0;
            let mut k = 0;
            while k < rest.len() {
                if rest[k..].starts_with("/*") {
                    depth += 1;
                    k += 2;
                } else if rest[k..].starts_with("*/") {
                    depth -= 1;
                    k += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    k += 1;
                }
            }
            i += k;
            out.push(' ');
        } else if b[i] == b'r'
            && (i == 0 || !ident(b[i - 1]) || (b[i - 1] == b'b' && (i < 2 || !ident(b[i - 2]))))
            && rest[1..].trim_start_matches('#').starts_with('"')
        {
            let hashes = rest[1..].len() - rest[1..].trim_start_matches('#').len();
            let close = format!("\"{}", "#".repeat(hashes));
            let body = 2 + hashes;
            i += body
                + rest[body..]
                    .find(&close)
                    .map_or(rest.len() - body, |k| k + close.len());
            out.push(' ');
        } else if b[i] == b'"' {
            let mut k = 1;
            while k < rest.len() && rest.as_bytes()[k] != b'"' {
                k += if rest.as_bytes()[k] == b'\\' { 2 } else { 1 };
            }
            i += (k + 1).min(rest.len());
            out.push(' ');
        } else if b[i] == b'\'' {
            // A character literal ('x', '\n', '"'), or a lifetime ('a), which stays.
            let len = if rest[1..].starts_with('\\') {
                rest[2..].find('\'').map(|k| k + 3)
            } else {
                rest[1..]
                    .chars()
                    .next()
                    .map(char::len_utf8)
                    .filter(|&n| rest[1 + n..].starts_with('\''))
                    .map(|n| n + 2)
            };
            match len {
                Some(n) => {
                    i += n;
                    out.push(' ');
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The code without `#[cfg(test)] mod name { … }` blocks (braces balance once comments and
/// strings are gone).
fn without_test_modules(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        let after = rest[at + "#[cfg(test)]".len()..].trim_start();
        let is_mod = after.starts_with("mod ") || after.starts_with("pub mod ");
        let Some(open) = after.find('{').filter(|_| is_mod) else {
            out.push_str(&rest[..at + 1]);
            rest = &rest[at + 1..];
            continue;
        };
        out.push_str(&rest[..at]);
        let mut depth = 0usize;
        let mut end = after.len();
        for (k, c) in after[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}
