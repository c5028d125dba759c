//! The real corpus: the users' own 2,413 Lean files (`../shared/corpus`, never copied here),
//! public Lean projects (`../shared/corpus-public`) and metaprogramming projects
//! (`../shared/corpus-meta`).
//!
//! Set `MF_CORPUS`, `MF_CORPUS_PUBLIC` or `MF_CORPUS_META` to use other directories. Without
//! a corpus its tests skip, visibly (`common::corpora`).

mod common;

use std::path::PathBuf;

use common::corpora::Corpus;

use math_forge::lean::batch::{parse_files, ParseStats};
use math_forge::lean::source::SourceError;
use math_forge::lean::walk::{lean_files, IgnoreRules};
use math_forge::lean::Outline;

/// The bar: at least 96.5% of the corpus parses without ERROR or MISSING nodes, among the
/// files that do not record Lean's own rejection of their code (see [`LEAN_REJECTED`]): today
/// 2,161 of 2,238 (96.56%), so two more unclean files fail it and must be looked at.
/// (It was 99% until the grammar learnt rules by which Lean rejects some 55 submissions that
/// were never run through Lean: a binary operator after `e |>.f a`, a doc comment that no
/// declaration follows, a more indented `_` line after a `calc` step's proof. Those files are
/// invalid Lean, and reporting them unclean is right.)
const MIN_CLEAN_PERCENT: f64 = 96.5;

/// Aristotle's note in a file whose code Lean could not load (it quotes Lean's error): such a
/// file is invalid Lean, and reporting its parse error is right, not a miss.
const LEAN_REJECTED: &str = "Aristotle failed to load this code into its environment";

#[test]
fn corpus_parses_cleanly_and_outlines_without_panics() {
    let Some(dir) = Corpus::Results.dir() else {
        return;
    };
    let (files, walk_errors) = lean_files(&[dir], IgnoreRules::HiddenOnly);
    assert!(walk_errors.is_empty(), "{walk_errors:?}");
    assert!(
        files.len() > 2000,
        "expected the full corpus, found {} files",
        files.len()
    );

    let mut stats = ParseStats::default();
    // the files without Lean's rejection on record
    let mut accepted = ParseStats::default();
    let mut unreadable = Vec::new();
    let mut unclean = Vec::new();
    let mut declarations = 0usize;
    let mut sorry_disagreements = Vec::new();
    parse_files(
        &files,
        |result| {
            result.map(|(source, parsed)| {
                let outline = Outline::of(&source.path.display().to_string(), &parsed);
                let lexical = lexical_hole_count(&parsed.text);
                let rejected = parsed.text.contains(LEAN_REJECTED);
                (parsed.text.len(), outline, lexical, rejected)
            })
        },
        |result| {
            match result {
                Err(e) => unreadable.push(e),
                Ok((bytes, outline, lexical, rejected)) => {
                    stats.add(bytes, outline.error_nodes);
                    if !rejected {
                        accepted.add(bytes, outline.error_nodes);
                    }
                    if outline.sorries.len() != lexical {
                        sorry_disagreements.push(format!(
                            "{}: tree {} vs lexical {lexical}",
                            outline.path,
                            outline.sorries.len()
                        ));
                    }
                    if outline.error_nodes > 0 {
                        unclean.push(outline.path.clone());
                    }
                    declarations += outline.declarations.len();
                    for s in &outline.sorries {
                        if let Some(d) = &s.declaration {
                            assert!(
                                outline.declarations.iter().any(|x| x.full_name == **d),
                                "{}: sorry at {}:{} names unknown declaration {d}",
                                outline.path,
                                s.line,
                                s.column
                            );
                        }
                    }
                }
            }
            std::ops::ControlFlow::Continue(())
        },
    );

    // The only unreadable files in the corpus are gzip downloads saved as .lean.
    assert!(
        unreadable
            .iter()
            .all(|e| matches!(e, SourceError::Binary { .. })),
        "{unreadable:?}"
    );
    assert!(
        unreadable.len() <= 30,
        "{} unreadable files",
        unreadable.len()
    );
    assert!(
        declarations > 10_000,
        "only {declarations} declarations found"
    );
    let percent = accepted.clean_percent();
    eprintln!(
        "corpus: {} files, {} clean ({:.2}%), {} declarations, {} binary; without Lean's \
         rejection on record: {} files, {} clean ({percent:.2}%)",
        stats.files,
        stats.clean_files,
        stats.clean_percent(),
        declarations,
        unreadable.len(),
        accepted.files,
        accepted.clean_files,
    );
    assert!(
        accepted.files > 2000,
        "only {} files without a recorded rejection",
        accepted.files
    );
    assert!(
        percent >= MIN_CLEAN_PERCENT,
        "only {percent:.2}% of {} files parse cleanly; unclean: {:#?}",
        accepted.files,
        unclean
    );
}

/// Issue 18's bars: at least 99.5% of each project's files parse without ERROR or MISSING
/// nodes, and in the files that do not, at most 1% of the column-0 declarations are lost
/// inside ERROR nodes.
#[test]
fn public_projects_parse_cleanly_and_errors_stay_in_their_command() {
    use math_forge::lean::containment::Containment;

    // Public Lean 4 projects the grammar was not written on (`../shared/corpus-public`, one
    // folder a project; `MF_CORPUS_PUBLIC` points elsewhere).
    let Some(root) = Corpus::Public.dir() else {
        return;
    };
    let mut projects: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    projects.sort();
    assert!(
        projects.len() >= 10,
        "expected the 12 projects, found {projects:?}"
    );

    let (mut in_unclean, mut lost) = (0usize, 0usize);
    let mut below_bar = Vec::new();
    for project in &projects {
        let (files, walk_errors) =
            lean_files(std::slice::from_ref(project), IgnoreRules::HiddenOnly);
        assert!(walk_errors.is_empty(), "{walk_errors:?}");
        let mut stats = ParseStats::default();
        let mut unclean = Vec::new();
        parse_files(
            &files,
            |result| {
                result.map(|(source, parsed)| {
                    let errors = parsed.error_count();
                    let containment = Containment::of(&parsed);
                    (source.path, parsed.text.len(), errors, containment)
                })
            },
            |result| {
                let (path, bytes, errors, containment) =
                    result.expect("public files are Lean text");
                stats.add(bytes, errors);
                if errors > 0 {
                    unclean.push(path.display().to_string());
                    in_unclean += containment.column0_declarations;
                    lost += containment.lost_declarations;
                }
                std::ops::ControlFlow::Continue(())
            },
        );
        let name = project.file_name().unwrap().to_string_lossy().to_string();
        eprintln!(
            "{name}: {} of {} files clean ({:.2}%)",
            stats.clean_files,
            stats.files,
            stats.clean_percent()
        );
        if stats.clean_percent() < 99.5 {
            below_bar.push(format!(
                "{name}: {:.2}%, unclean {unclean:#?}",
                stats.clean_percent()
            ));
        }
    }
    assert!(
        below_bar.is_empty(),
        "projects below 99.5% clean: {below_bar:#?}"
    );
    eprintln!("column-0 declarations in unclean files: {in_unclean}, lost to errors: {lost}");
    assert!(
        lost * 100 <= in_unclean,
        "{lost} of {in_unclean} column-0 declarations in unclean files are inside ERROR nodes"
    );
}

/// Issue 25's bars: at least 99.5% of each metaprogramming project's files parse without
/// ERROR or MISSING nodes (hidden ones included), no column-0 declaration is lost inside an
/// ERROR node, and the walk that finds the errors agrees with the tree's root on every file.
#[test]
fn metaprogramming_projects_parse_cleanly_and_lose_no_declaration() {
    use math_forge::lean::containment::Containment;

    // Lean written by its toolsmiths (`../shared/corpus-meta`, one folder a project: syntax
    // quotations, `syntax`/`macro_rules`/`elab`, `do` blocks, HTML in terms, Verso documents).
    let Some(root) = Corpus::Meta.dir() else {
        return;
    };
    let mut projects: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    projects.sort();
    assert!(
        projects.len() >= 4,
        "expected the 4 projects, found {projects:?}"
    );

    let (mut in_unclean, mut lost) = (0usize, 0usize);
    let mut below_bar = Vec::new();
    let mut disagreements = Vec::new();
    for project in &projects {
        let (files, walk_errors) =
            lean_files(std::slice::from_ref(project), IgnoreRules::HiddenOnly);
        assert!(walk_errors.is_empty(), "{walk_errors:?}");
        let mut stats = ParseStats::default();
        let mut unclean = Vec::new();
        parse_files(
            &files,
            |result| {
                result.map(|(source, parsed)| {
                    let errors = parsed.error_count();
                    let agrees = parsed.has_errors() == parsed.root().has_error();
                    let containment = Containment::of(&parsed);
                    (source.path, parsed.text.len(), errors, agrees, containment)
                })
            },
            |result| {
                let (path, bytes, errors, agrees, containment) =
                    result.expect("metaprogramming files are Lean text");
                stats.add(bytes, errors);
                if !agrees {
                    disagreements.push(path.display().to_string());
                }
                if errors > 0 {
                    unclean.push(path.display().to_string());
                    in_unclean += containment.column0_declarations;
                    lost += containment.lost_declarations;
                }
                std::ops::ControlFlow::Continue(())
            },
        );
        let name = project.file_name().unwrap().to_string_lossy().to_string();
        eprintln!(
            "{name}: {} of {} files clean ({:.2}%)",
            stats.clean_files,
            stats.files,
            stats.clean_percent()
        );
        if stats.clean_percent() < 99.5 {
            below_bar.push(format!(
                "{name}: {:.2}%, unclean {unclean:#?}",
                stats.clean_percent()
            ));
        }
    }
    assert!(
        disagreements.is_empty(),
        "the error walk and the root's has_error disagree on {disagreements:#?}"
    );
    assert!(
        below_bar.is_empty(),
        "projects below 99.5% clean: {below_bar:#?}"
    );
    eprintln!("column-0 declarations in unclean files: {in_unclean}, lost to errors: {lost}");
    assert_eq!(
        lost, 0,
        "{lost} of {in_unclean} column-0 declarations in unclean files are inside ERROR nodes"
    );
}

/// Counts `sorry`/`admit` words outside comments (nested), strings and after `#exit`, by a
/// lexer independent of the grammar: the cross-check for the tree's holes on real files.
fn lexical_hole_count(text: &str) -> usize {
    let s: Vec<char> = text.chars().collect();
    let starts = |i: usize, pat: &str| {
        pat.chars()
            .enumerate()
            .all(|(k, c)| s.get(i + k) == Some(&c))
    };
    let is_word = |c: char| {
        c.is_alphanumeric() || matches!(c, '_' | '\'' | '!' | '?' | '.') || is_letter_like(c)
    };
    let (mut i, mut count) = (0, 0);
    while i < s.len() {
        if starts(i, "/-") {
            let mut depth = 0;
            while i < s.len() {
                if starts(i, "/-") {
                    depth += 1;
                    i += 2;
                } else if starts(i, "-/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if starts(i, "--") {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
        } else if s[i] == '"' {
            i += 1;
            while i < s.len() && s[i] != '"' {
                i += if s[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if starts(i, "#exit") {
            break;
        } else if is_word(s[i]) && !s[i].is_ascii_digit() {
            let start = i;
            while i < s.len() && is_word(s[i]) {
                i += 1;
            }
            let word: String = s[start..i].iter().collect();
            if word == "sorry" || word == "admit" {
                count += 1;
            }
        } else {
            i += 1;
        }
    }
    count
}

/// Letters Lean accepts in identifiers beyond alphanumerics (Greek, subscripts, …), excluding
/// the brackets and arrows that end a word.
fn is_letter_like(c: char) -> bool {
    let c = c as u32;
    (0x370..=0x3ff).contains(&c) || (0x1f00..=0x1ffe).contains(&c) || (0x2080..=0x209c).contains(&c)
}

/// Without the corpora the tests above pass with one visible line each, naming the missing
/// folder and the variable to set; a variable naming no folder, or `MF_REQUIRE_CORPORA`, makes
/// them fail instead. Runs this test binary again with the corpora pointed at an empty folder.
#[test]
fn a_missing_corpus_is_skipped_visibly() {
    let empty = tempfile::TempDir::new().unwrap();
    let run = |env: &[(&str, &std::ffi::OsStr)]| {
        let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
        cmd.args([
            "--exact",
            "corpus_parses_cleanly_and_outlines_without_panics",
            "public_projects_parse_cleanly_and_errors_stay_in_their_command",
        ]);
        for var in [
            "MF_CORPUS",
            "MF_CORPUS_PUBLIC",
            "MF_CORPUS_META",
            "MF_REQUIRE_CORPORA",
        ] {
            cmd.env_remove(var);
        }
        cmd.env("MF_SHARED", empty.path());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.success(), text)
    };
    let shared = empty.path().display().to_string();

    let (ok, text) = run(&[]);
    assert!(ok, "{text}");
    assert!(text.contains("2 passed"), "{text}");
    for (test, folder, var) in [
        (
            "corpus_parses_cleanly_and_outlines_without_panics",
            "corpus",
            "MF_CORPUS",
        ),
        (
            "public_projects_parse_cleanly_and_errors_stay_in_their_command",
            "corpus-public",
            "MF_CORPUS_PUBLIC",
        ),
    ] {
        let line = format!(
            "SKIPPED {test}: {shared}/{folder} not found (set {var} to use a copy elsewhere)"
        );
        assert_eq!(text.matches(&line).count(), 1, "{line}\n{text}");
    }

    let (ok, text) = run(&[("MF_REQUIRE_CORPORA", "1".as_ref())]);
    assert!(!ok, "{text}");
    assert!(text.contains("MF_REQUIRE_CORPORA is set"), "{text}");

    let nowhere = empty.path().join("nowhere");
    let (ok, text) = run(&[("MF_CORPUS", nowhere.as_os_str())]);
    assert!(!ok, "{text}");
    assert!(
        text.contains(&format!("$MF_CORPUS is {}", nowhere.display())),
        "{text}"
    );
}
