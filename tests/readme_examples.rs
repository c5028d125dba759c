//! Every command in the README's `sh` code blocks runs, in order, in a scratch copy of
//! `fixtures/` with mf and mk on PATH, its own knowledge.db, and `submissions/tracking.db`
//! made from `fixtures/tracking.sql`. A block preceded by
//! `<!-- readme-examples: skip: REASON -->` is not run; every other block is, so a new
//! example is covered by default. A command passes when it exits 0 or 1 (1: the check found
//! something) without a panic; 2 (usage or input error) or anything else fails.

use std::fs;
use std::path::Path;
use std::process::Command;

use tempfile::TempDir;

const SKIP: &str = "<!-- readme-examples: skip:";

/// One runnable command: the README line it is on, and its text.
struct Example {
    line: usize,
    command: String,
}

/// The commands of the README's `sh` blocks, and how many blocks were skipped.
fn examples(readme: &str) -> (Vec<Example>, usize) {
    let mut out = Vec::new();
    let mut skipped = 0;
    let mut in_block: Option<bool> = None; // Some(run?) inside a fence
    let mut previous = "";
    for (i, line) in readme.lines().enumerate() {
        let trimmed = line.trim();
        match in_block {
            None if trimmed.starts_with("```") => {
                let is_sh = trimmed == "```sh";
                let skip = previous.starts_with(SKIP);
                assert!(
                    !skip || previous.trim_end_matches("-->").trim().len() > SKIP.len(),
                    "README.md:{i}: a skip annotation needs a reason"
                );
                if is_sh && skip {
                    skipped += 1;
                }
                in_block = Some(is_sh && !skip);
            }
            None => {}
            Some(_) if trimmed.starts_with("```") => in_block = None,
            Some(true) if !trimmed.is_empty() && !trimmed.starts_with('#') => out.push(Example {
                line: i + 1,
                command: trimmed.to_string(),
            }),
            Some(_) => {}
        }
        if !trimmed.is_empty() {
            previous = trimmed;
        }
    }
    (out, skipped)
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Runs `examples` in order in one scratch directory; the failures, described.
fn run_in_scratch(examples: &[Example], file: &str) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scratch = TempDir::new().unwrap();
    let dir = scratch.path();
    copy_dir(&root.join("fixtures"), &dir.join("fixtures"));
    fs::create_dir(dir.join("submissions")).unwrap();
    rusqlite::Connection::open(dir.join("submissions/tracking.db"))
        .unwrap()
        .execute_batch(&fs::read_to_string(root.join("fixtures/tracking.sql")).unwrap())
        .unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_mf")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();

    let tmp = dir.join("tmp");
    fs::create_dir(&tmp).unwrap();
    let mut failures = Vec::new();
    for example in examples {
        let out = Command::new("sh")
            .args(["-c", &example.command])
            .current_dir(dir)
            .env("PATH", &path)
            .env("HOME", dir)
            .env("TMPDIR", &tmp)
            .env("MATH_FORGE_DB", dir.join("knowledge.db"))
            .env_remove("MATH_FORGE_TRACKING_DB")
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("GITHUB_STEP_SUMMARY")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !matches!(out.status.code(), Some(0 | 1)) || stderr.contains("panicked") {
            failures.push(format!(
                "{file}:{}: `{}` exited {:?}\n{stderr}",
                example.line, example.command, out.status
            ));
        }
    }
    // An example that changes a file works on a copy: the fixtures are as the repository has
    // them (running the README by hand must not break the suite).
    failures.extend(
        changed_files(&root.join("fixtures"), &dir.join("fixtures"))
            .into_iter()
            .map(|f| format!("{file}: an example changed fixtures/{f}; run it on a copy")),
    );
    failures
}

/// Files under `copy` whose bytes differ from (or are missing in) `original`, relative.
fn changed_files(original: &Path, copy: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![std::path::PathBuf::new()];
    while let Some(rel) = stack.pop() {
        for entry in fs::read_dir(original.join(&rel)).unwrap() {
            let entry = entry.unwrap();
            let rel = rel.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                stack.push(rel);
            } else if fs::read(copy.join(&rel)).ok() != Some(fs::read(entry.path()).unwrap()) {
                out.push(rel.display().to_string());
            }
        }
    }
    out
}

#[test]
fn every_readme_example_runs_on_the_fixtures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = fs::read_to_string(root.join("README.md")).unwrap();
    let (examples, skipped) = examples(&readme);
    assert!(
        examples.len() >= 20,
        "only {} examples found",
        examples.len()
    );
    assert!(skipped >= 1);
    let failures = run_in_scratch(&examples, "README.md");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_example_workflow_runs_mf_as_mf_accepts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workflow = fs::read_to_string(root.join("docs/github-actions.yml")).unwrap();
    let examples: Vec<Example> = workflow
        .lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let command = l.trim().strip_prefix("run: mf ")?;
            Some(Example {
                line: i + 1,
                command: format!("mf {command}"),
            })
        })
        .collect();
    assert_eq!(examples.len(), 2);
    let failures = run_in_scratch(&examples, "docs/github-actions.yml");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn skip_annotations_and_other_languages_are_not_run() {
    let readme = "```sh\nmf a\n# a comment\n\nmf b # note\n```\n\n\
                  <!-- readme-examples: skip: needs Lean -->\n```sh\nmf c\n```\n\
                  ```text\nmf d\n```\n";
    let (examples, skipped) = examples(readme);
    let commands: Vec<(usize, &str)> = examples
        .iter()
        .map(|e| (e.line, e.command.as_str()))
        .collect();
    assert_eq!(commands, [(2, "mf a"), (5, "mf b # note")]);
    assert_eq!(skipped, 1);
}

/// The exit statuses `docs/ci.md` and the README give for `mf lint` are the same and are what
/// `mf lint` does: 0 clean, 1 an error-level finding, 2 a usage or input error (a missing
/// path, a named file that cannot be read as Lean, an unknown rule).
#[test]
fn docs_give_mf_lint_exit_statuses_as_it_behaves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let flat = |path: &str| {
        fs::read_to_string(root.join(path))
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let said = "0 no error-level finding, 1 an error-level finding, 2 a usage or input error (";
    for doc in ["README.md", "docs/ci.md"] {
        let text = flat(doc);
        let at = text
            .find(said)
            .unwrap_or_else(|| panic!("{doc} does not say `{said}…`"));
        let two = &text[at + said.len()..];
        let two = &two[..two.find(')').unwrap()];
        for case in ["a path that does not exist", "an unreadable file"] {
            assert!(two.contains(case), "{doc}: 2 should cover {case}: {two}");
        }
    }
    let dir = TempDir::new().unwrap();
    fs::write(
        dir.path().join("Clean.lean"),
        "theorem t : True := trivial\n",
    )
    .unwrap();
    fs::write(
        dir.path().join("Hole.lean"),
        "theorem t : True := by\n  sorry\n",
    )
    .unwrap();
    fs::write(dir.path().join("Binary.lean"), b"\x1f\x8b\x08\x00\x00").unwrap();
    for (args, code) in [
        (&["Clean.lean"][..], 0),
        (&["Hole.lean"], 1),
        (&["Missing.lean"], 2),
        (&["Binary.lean"], 2),
        (&["--allow", "sory", "Clean.lean"], 2),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_mf"))
            .arg("lint")
            .args(args)
            .current_dir(dir.path())
            .env_remove("MATH_FORGE_TRACKING_DB")
            .env("HOME", dir.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(code), "mf lint {args:?}");
    }
}

/// The quick start, run as a newcomer would (no knowledge-base variables, an empty home),
/// finds what it says and leaves no trace: nothing in the home, nothing beside the fixtures,
/// the fixtures unchanged.
#[test]
fn the_quick_start_leaves_no_trace() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = fs::read_to_string(root.join("README.md")).unwrap();
    let setup = &readme[readme.find("## Set up").unwrap()..readme.find("## Test").unwrap()];
    let (examples, _) = examples(setup);
    let quick = examples
        .iter()
        .find(|e| e.command.contains("mf extract"))
        .expect("a quick start under Set up");
    let scratch = TempDir::new().unwrap();
    let dir = scratch.path().join("clone");
    let home = scratch.path().join("home");
    let tmp = scratch.path().join("tmp");
    for d in [&home, &tmp] {
        fs::create_dir(d).unwrap();
    }
    copy_dir(&root.join("fixtures"), &dir.join("fixtures"));
    let bin = Path::new(env!("CARGO_BIN_EXE_mf")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let mut cmd = Command::new("sh");
    cmd.args(["-c", &quick.command])
        .current_dir(&dir)
        .env("PATH", &path)
        .env("HOME", &home)
        .env("TMPDIR", &tmp);
    for var in [
        "MATH_FORGE_DB",
        "MATH_FORGE_TRACKING_DB",
        "XDG_DATA_HOME",
        "CLAUDE_PLUGIN_DATA",
        "CLAUDE_PROJECT_DIR",
    ] {
        cmd.env_remove(var);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("prime_le_sq"), "{stdout}");
    // It says which knowledge base it wrote: the scratch one.
    assert!(
        stdout.contains(&format!("knowledge.db: {}", tmp.display())),
        "{stdout}"
    );
    let in_home: Vec<_> = fs::read_dir(&home).unwrap().collect();
    assert!(
        in_home.is_empty(),
        "the quick start wrote into the home: {in_home:?}"
    );
    let beside: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(beside, ["fixtures"], "the quick start left files behind");
    assert_eq!(
        changed_files(&root.join("fixtures"), &dir.join("fixtures")),
        Vec::<String>::new()
    );
}
