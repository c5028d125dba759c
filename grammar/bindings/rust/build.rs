//! Compiles the generated parser and the external scanner.
//!
//! `src/parser.c` is kept exactly as `tree-sitter generate` wrote it. The copy compiled here is
//! rewritten first (see `speed_up_lexer`): the lexer's hot paths become cheaper, its behaviour
//! stays the same.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let src_dir = Path::new("src");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));

    let parser_c = src_dir.join("parser.c");
    let generated = std::fs::read_to_string(&parser_c).expect("src/parser.c is readable");
    let fast = out_dir.join("parser.c");
    std::fs::write(&fast, speed_up_lexer(&generated)).expect("OUT_DIR is writable");

    let mut c_config = cc::Build::new();
    c_config.std("c11").include(src_dir);
    // Generated parsers trip many harmless warnings; they are not ours to fix.
    c_config.warnings(false);
    #[cfg(target_env = "msvc")]
    c_config.flag("-utf-8");

    c_config.file(&fast);
    c_config.file(src_dir.join("scanner.c"));
    for file in ["src/parser.c", "src/scanner.c", "src/tree_sitter/parser.h"] {
        println!("cargo:rerun-if-changed={file}");
    }
    println!("cargo:rerun-if-changed=bindings/rust/build.rs");
    c_config.compile("tree-sitter-lean");
}

/// Rewrites the generated lexer functions for speed, keeping what they accept:
///
/// * `ADVANCE_MAP(c1, s1, c2, s2, …)` scans its pairs linearly for every character, including
///   every whitespace character between tokens; a `switch` lets the C compiler build a jump
///   table or a binary search instead.
/// * `eof = lexer->eof(lexer)` runs for every character through a function pointer; the lexer's
///   lookahead is `0` at the end of input, so the call is needed only when the lookahead is `0`.
///
/// * `set_contains(set, n, lookahead)` binary-searches the set's ranges; most characters are
///   ASCII, so each set gets a 128-bit table that answers those with one lookup.
///
/// Text the rewrite does not recognise is left as it is.
fn speed_up_lexer(c: &str) -> String {
    let c = c.replace(
        "eof = lexer->eof(lexer);",
        "eof = lookahead == 0 && lexer->eof(lexer);",
    );
    let c = ascii_tables_for_sets(&c);
    let mut out = String::with_capacity(c.len() + c.len() / 8);
    let mut rest = c.as_str();
    const OPEN: &str = "ADVANCE_MAP(";
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at]);
        let args_start = at + OPEN.len();
        let Some(len) = rest[args_start..].find(");") else {
            out.push_str(&rest[at..]);
            return out;
        };
        let args = &rest[args_start..args_start + len];
        let end = args_start + len + 2; // past `);`
        match advance_map_switch(args) {
            // the `;` stays as an empty statement after the switch
            Some(switch) => {
                out.push_str(&switch);
                out.push(';');
            }
            None => out.push_str(&rest[at..end]),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// `'a', 12, 0x2200, 7,` → `switch (lookahead) { case 'a': ADVANCE(12); … default: break; }`.
/// `None` when the arguments are not the pairs of character and state this expects.
fn advance_map_switch(args: &str) -> Option<String> {
    let items = split_c_args(args)?;
    if items.len() % 2 != 0 {
        return None;
    }
    let mut seen = std::collections::HashSet::new();
    let mut s = String::from("switch (lookahead) {\n");
    for pair in items.chunks(2) {
        let (key, state) = (&pair[0], &pair[1]);
        if !state.chars().all(|ch| ch.is_ascii_digit()) {
            return None;
        }
        // The linear scan takes the first match; a later duplicate could never be reached.
        if seen.insert(key.clone()) {
            let _ = writeln!(s, "        case {key}: ADVANCE({state});");
        }
    }
    s.push_str("        default: break;\n      }");
    Some(s)
}

/// Splits `'a', 1, ',', 2,` into its items, respecting character literals such as `','`.
fn split_c_args(args: &str) -> Option<Vec<String>> {
    let mut items = Vec::new();
    let mut cur = String::new();
    let mut chars = args.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            '\'' => {
                cur.push(ch);
                loop {
                    let next = chars.next()?;
                    cur.push(next);
                    if next == '\\' {
                        cur.push(chars.next()?);
                    } else if next == '\'' {
                        break;
                    }
                }
            }
            ',' => {
                items.push(std::mem::take(&mut cur).trim().to_string());
            }
            _ => cur.push(ch),
        }
    }
    if !cur.trim().is_empty() {
        items.push(cur.trim().to_string());
    }
    if items.iter().any(|i| i.is_empty()) {
        return None;
    }
    Some(items)
}

/// Adds `NAME_ascii`, a bitmap of the ASCII members, after each `TSCharacterRange NAME[]` and
/// makes every `set_contains(NAME, …)` consult it first.
fn ascii_tables_for_sets(c: &str) -> String {
    const DECL: &str = "static const TSCharacterRange ";
    let mut out = String::with_capacity(c.len() + 4096);
    let mut rest = c;
    let mut names = Vec::new();
    let mut helper_written = false;
    while let Some(at) = rest.find(DECL) {
        let name_start = at + DECL.len();
        let Some(name_len) = rest[name_start..].find("[]") else {
            break;
        };
        let Some(body_len) = rest[name_start..].find("};") else {
            break;
        };
        let name = &rest[name_start..name_start + name_len];
        let body = &rest[name_start + name_len..name_start + body_len];
        let Some(bits) = ascii_bitmap(body) else {
            out.push_str(&rest[..name_start + body_len + 2]);
            rest = &rest[name_start + body_len + 2..];
            continue;
        };
        out.push_str(&rest[..at]);
        if !helper_written {
            out.push_str(
                "static inline bool set_contains_ascii_first(const uint64_t ascii[2],\n\
                 const TSCharacterRange *ranges, uint32_t len, int32_t lookahead) {\n\
                 \x20 if ((uint32_t)lookahead < 128) return (ascii[lookahead >> 6] >> (lookahead & 63)) & 1;\n\
                 \x20 return set_contains(ranges, len, lookahead);\n}\n\n",
            );
            helper_written = true;
        }
        out.push_str(&rest[at..name_start + body_len + 2]);
        let _ = write!(
            out,
            "\nstatic const uint64_t {name}_ascii[2] = {{0x{:x}ULL, 0x{:x}ULL}};",
            bits[0], bits[1]
        );
        names.push(name.to_string());
        rest = &rest[name_start + body_len + 2..];
    }
    out.push_str(rest);
    for name in names {
        out = out.replace(
            &format!("set_contains({name}, "),
            &format!("set_contains_ascii_first({name}_ascii, {name}, "),
        );
    }
    out
}

/// The ASCII members of `= { {'a', 'z'}, {0x80, 0x10ffff}, … }` as 128 bits.
fn ascii_bitmap(body: &str) -> Option<[u64; 2]> {
    let inner = body.split_once('{')?.1;
    let items = split_c_args(&inner.replace(['{', '}'], ""))?;
    if items.len() % 2 != 0 {
        return None;
    }
    let mut bits = [0u64; 2];
    for pair in items.chunks(2) {
        let (lo, hi) = (c_char_value(&pair[0])?, c_char_value(&pair[1])?);
        for ch in lo..=hi.min(127) {
            bits[(ch >> 6) as usize] |= 1 << (ch & 63);
        }
    }
    Some(bits)
}

/// The value of a C character constant or integer literal as the generator writes them.
fn c_char_value(lit: &str) -> Option<u32> {
    if let Some(hex) = lit.strip_prefix("0x") {
        return u32::from_str_radix(hex, 16).ok();
    }
    if let Some(quoted) = lit.strip_prefix('\'').and_then(|l| l.strip_suffix('\'')) {
        return match quoted {
            "\\t" => Some(9),
            "\\n" => Some(10),
            "\\v" => Some(11),
            "\\f" => Some(12),
            "\\r" => Some(13),
            "\\0" => Some(0),
            "\\\\" => Some(92),
            "\\'" => Some(39),
            "\\\"" => Some(34),
            q if q.chars().count() == 1 => q.chars().next().map(u32::from),
            _ => None,
        };
    }
    lit.parse().ok()
}
