//! Problem identity on public layouts (`../shared/corpus-public`, or `MF_CORPUS_PUBLIC`):
//! PutnamBench, compfiles and Seed-Prover's past-IMO folder are extracted into scratch
//! knowledge bases, and each file's problem is compared with what the layout's own naming
//! says (read here independently, with plain string handling): at least 99% agree, and no two
//! of the layout's problems are merged or one split. Skipped, with a message, when the corpus
//! is absent.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use rusqlite::Connection;

fn corpus_public() -> PathBuf {
    std::env::var_os("MF_CORPUS_PUBLIC")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus-public")
        })
}

/// `(path relative to the layout, problem id)` of every stored source.
fn extract(root: &Path, dirs: &[&str]) -> Vec<(String, Option<String>)> {
    let scratch = tempfile::TempDir::new().unwrap();
    let db = scratch.path().join("knowledge.db");
    let mut cmd = Command::cargo_bin("mf").unwrap();
    cmd.arg("extract").arg("--db").arg(&db).arg("--all");
    for d in dirs {
        cmd.arg(root.join(d));
    }
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("internal error"), "{stderr}");
    let root = std::fs::canonicalize(root).unwrap();
    let conn = Connection::open(&db).unwrap();
    let rows: Vec<(String, Option<String>)> = conn
        .prepare("SELECT path, problem_id FROM sources ORDER BY path")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    rows.into_iter()
        .map(|(p, id)| {
            let rel = Path::new(&p)
                .strip_prefix(&root)
                .unwrap_or(Path::new(&p))
                .display()
                .to_string();
            (rel, id)
        })
        .collect()
}

/// How far the extracted problems agree with the layout's own naming.
#[derive(Debug, Default)]
struct Agreement {
    files: usize,
    agree: usize,
    problems: usize,
    /// The layout's problems that became part of another's.
    merged: Vec<String>,
    /// The layout's problems spread over several ids.
    split: Vec<String>,
    wrong: Vec<String>,
}

impl Agreement {
    fn percent(&self) -> f64 {
        100.0 * self.agree as f64 / self.files.max(1) as f64
    }
}

fn agreement(
    rows: &[(String, Option<String>)],
    expected: impl Fn(&str) -> Option<String>,
) -> Agreement {
    let mut a = Agreement::default();
    let mut by_expected: HashMap<String, HashSet<Option<String>>> = HashMap::new();
    let mut by_found: HashMap<String, HashSet<String>> = HashMap::new();
    for (path, found) in rows {
        let want = expected(path);
        a.files += 1;
        if *found == want {
            a.agree += 1;
        } else {
            a.wrong
                .push(format!("{path}: {found:?}, layout says {want:?}"));
        }
        if let Some(want) = want {
            by_expected
                .entry(want.clone())
                .or_default()
                .insert(found.clone());
            if let Some(found) = found {
                by_found.entry(found.clone()).or_default().insert(want);
            }
        }
    }
    a.problems = by_expected.len();
    a.split = by_expected
        .iter()
        .filter(|(_, f)| f.len() > 1)
        .map(|(w, _)| w.clone())
        .collect();
    a.merged = by_found
        .iter()
        .filter(|(_, w)| w.len() > 1)
        .map(|(f, w)| format!("{f} <- {w:?}"))
        .collect();
    a
}

fn check(name: &str, a: &Agreement) {
    eprintln!(
        "{name}: {} of {} files agree ({:.2}%), {} problems, {} merged, {} split",
        a.agree,
        a.files,
        a.percent(),
        a.problems,
        a.merged.len(),
        a.split.len()
    );
    for w in a.wrong.iter().take(20) {
        eprintln!("  {w}");
    }
    assert!(a.files > 0, "{name}: no files");
    assert!(a.percent() >= 99.0, "{name}: {:.2}% agree", a.percent());
    assert!(a.merged.is_empty(), "{name}: merged {:?}", a.merged);
    assert!(a.split.is_empty(), "{name}: split {:?}", a.split);
}

/// `Imo2025P4` → `imo_2025_p4`; `UK2024R1P1` → `uk_2024_r1_p1`; `Usa1990P1` → `usa_1990_p1`.
fn compfiles_name(stem: &str) -> Option<String> {
    let year_at = stem.find(|c: char| c.is_ascii_digit())?;
    let (contest, rest) = stem.split_at(year_at);
    let (year, rest) = rest.split_at(4.min(rest.len()));
    if contest.is_empty() || !year.chars().all(|c| c.is_ascii_digit()) || year.len() != 4 {
        return None;
    }
    let p = rest.rfind('P')?;
    let (round, number) = rest.split_at(p);
    let number = &number[1..];
    if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let round = if round.is_empty() {
        String::new()
    } else {
        format!("{}_", round.to_ascii_lowercase())
    };
    Some(format!(
        "{}_{year}_{round}p{number}",
        contest.to_ascii_lowercase()
    ))
}

#[test]
fn public_layouts_name_their_problems() {
    let root = corpus_public();
    if !root.is_dir() {
        eprintln!(
            "skipped: public corpus not found at {} (check out ../shared beside the project or set MF_CORPUS_PUBLIC)",
            root.display()
        );
        return;
    }

    // PutnamBench: `lean4/src/putnam_1986_b4.lean` is problem putnam_1986_b4; the build file
    // and the docstring checker are no problems.
    let putnam = root.join("trishullab__PutnamBench");
    let rows = extract(&putnam, &["lean4"]);
    let a = agreement(&rows, |path| {
        let stem = Path::new(path).file_stem()?.to_str()?;
        (path.starts_with("lean4/src/") && stem.starts_with("putnam_")).then(|| stem.to_string())
    });
    check("PutnamBench", &a);
    assert!(a.problems >= 600, "{a:?}");

    // compfiles: `Compfiles/Imo2025P4.lean` is imo_2025_p4; a problem file whose name names no
    // contest is a problem of its own name; the site, the problem extraction library and the
    // scripts are none.
    let compfiles = root.join("dwrensha__compfiles");
    let rows = extract(&compfiles, &["."]);
    let a = agreement(&rows, |path| {
        let rest = path.strip_prefix("./").unwrap_or(path);
        let rest = rest.strip_prefix("Compfiles/")?;
        let stem = rest.strip_suffix(".lean")?;
        compfiles_name(stem).or_else(|| Some(stem.to_string()))
    });
    check("compfiles", &a);
    assert!(a.problems >= 500, "{a:?}");

    // Seed-Prover's past IMO proofs: `imo1975_p2_algebra.lean`, `imo_1960_p2.lean`,
    // `imolist_2024_A2.lean` (the shortlist), and the IMO 2025 folder's `imo2025/p1.lean`.
    // The whole project is extracted (its miniCTX files have names with `₂`, `'`, dots), the
    // IMO folders measured.
    let seed = root.join("ByteDance-Seed__Seed-Prover/SeedProver");
    let rows: Vec<(String, Option<String>)> = extract(&seed, &["."])
        .into_iter()
        .map(|(p, id)| (p.trim_start_matches("./").to_string(), id))
        .filter(|(p, _)| p.starts_with("imo.zip.d/") || p.starts_with("imo2025/"))
        .collect();
    let a = agreement(&rows, |path| {
        let stem = Path::new(path).file_stem()?.to_str()?;
        if let Some(year_dir) = path.strip_prefix("imo2025/") {
            let n = year_dir.strip_prefix('p')?.strip_suffix(".lean")?;
            return Some(format!("imo_2025_p{n}"));
        }
        if let Some(rest) = stem.strip_prefix("imolist_") {
            let (year, label) = rest.split_once('_')?;
            return Some(format!("imo_sl_{year}_{}", label.to_ascii_lowercase()));
        }
        let rest = stem.strip_prefix("imo_").or(stem.strip_prefix("imo"))?;
        let (year, rest) = rest.split_once("_p")?;
        let number: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        Some(format!("imo_{year}_p{number}"))
    });
    check("Seed-Prover IMO", &a);
    assert!(a.problems >= 100, "{a:?}");
}
