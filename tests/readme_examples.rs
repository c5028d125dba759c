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

    let mut failures = Vec::new();
    for example in examples {
        let out = Command::new("sh")
            .args(["-c", &example.command])
            .current_dir(dir)
            .env("PATH", &path)
            .env("HOME", dir)
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
    failures
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
