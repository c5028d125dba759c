//! One row per fact (issue 15, part B): theorems deduplicated by name and normalized
//! statement with every occurrence kept, re-extraction that updates, old databases merged on
//! migration, proofs found by the lemmas they use, techniques from the proof's spine.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use math_forge::extract::{run, Overrides};
use math_forge::kb::{Kb, MatchKind, SearchOptions};
use rusqlite::Connection;
use tempfile::TempDir;

const CARD: &str = "import Mathlib\n\n\
theorem card_bound (s t : Finset ℕ) (h : s ⊆ t) : s.card ≤ t.card := by\n  \
  have h2 : 1 ≤ 2 := by decide\n  \
  exact Finset.card_le_card h\n";

/// The same theorem laid out differently, next to a lemma with a hole.
const CARD_AGAIN: &str = "import Mathlib\n\n\
theorem card_bound (s t : Finset ℕ)\n    (h : s ⊆ t) :\n    s.card ≤ t.card := by\n  \
  exact Finset.card_le_card h\n\n\
lemma open_part (n : ℕ) : n ≤ n * n := by\n  sorry\n";

const NLIN: &str = "import Mathlib\n\n\
theorem sq_bound (a b : ℝ) (ha : 0 ≤ a) (hb : 0 ≤ b) : a * b ≤ (a ^ 2 + b ^ 2) / 2 := by\n  \
  have h0 : (0 : ℕ) < 1 := by decide\n  \
  nlinarith [sq_nonneg (a - b)]\n";

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
}

fn extract(kb: &mut Kb, files: &[PathBuf]) {
    run(kb, files, &Overrides::default(), |_| {}, |_| {}).unwrap();
}

fn theorem_rows(kb: &Kb, name: &str) -> Vec<(i64, String)> {
    let mut stmt = kb
        .connection()
        .prepare("SELECT id, confidence FROM findings WHERE finding_type = 'theorem' AND theorem_name = ?1")
        .unwrap();
    stmt.query_map([name], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

#[test]
fn one_row_per_fact_with_every_occurrence() {
    let dir = TempDir::new().unwrap();
    let a = write(dir.path(), "slot101_erdos_1_result.lean", CARD);
    let b = write(dir.path(), "slot102_erdos_1_result.lean", CARD_AGAIN);
    let mut kb = Kb::open(&dir.path().join("knowledge.db")).unwrap();
    extract(&mut kb, &[a.clone(), b.clone()]);

    let rows = theorem_rows(&kb, "card_bound");
    assert_eq!(rows.len(), 1, "{rows:?}");
    // Verified in the sorry-free file, medium in the one with a hole: the best is kept.
    assert_eq!(rows[0].1, "verified");
    let sources = kb.fact_sources(rows[0].0).unwrap();
    let slots: Vec<_> = sources
        .iter()
        .map(|s| (s.slot, s.confidence.clone()))
        .collect();
    assert_eq!(
        slots,
        vec![
            (Some(101), Some("verified".to_string())),
            (Some(102), Some("medium".to_string()))
        ]
    );
    // A re-run adds nothing.
    extract(&mut kb, &[a.clone(), b.clone()]);
    assert_eq!(theorem_rows(&kb, "card_bound").len(), 1);
    assert_eq!(kb.fact_sources(rows[0].0).unwrap().len(), 2);

    // The verified file changes its statement: the old fact keeps only the other file, at
    // the confidence that file supports, and the new statement is a fact of its own.
    fs::write(&a, CARD.replace("s.card ≤ t.card", "s.card ≤ t.card + 0")).unwrap();
    extract(&mut kb, &[a.clone(), b.clone()]);
    let rows = theorem_rows(&kb, "card_bound");
    assert_eq!(rows.len(), 2, "{rows:?}");
    let old = kb.fact_sources(rows[0].0).unwrap();
    assert_eq!(old.len(), 1);
    assert_eq!(old[0].slot, Some(102));
    assert_eq!(rows[0].1, "medium");

    // The other file goes: the old fact has no occurrence left and goes with it.
    kb.remove_source(&std::fs::canonicalize(&b).unwrap().display().to_string())
        .unwrap();
    let rows = theorem_rows(&kb, "card_bound");
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(kb.fact_sources(rows[0].0).unwrap()[0].slot, Some(101));
    kb.check_indexes().unwrap();
}

#[test]
fn search_finds_the_proofs_that_use_a_lemma() {
    let dir = TempDir::new().unwrap();
    let files = [
        write(dir.path(), "slot101_erdos_1_result.lean", CARD),
        write(dir.path(), "slot103_erdos_2_result.lean", NLIN),
    ];
    let db = dir.path().join("knowledge.db");
    let mut kb = Kb::open(&db).unwrap();
    extract(&mut kb, &files);
    let id = theorem_rows(&kb, "card_bound")[0].0;
    assert_eq!(kb.fact_uses(id).unwrap(), vec!["Finset.card_le_card"]);

    for query in ["Finset.card_le_card", "card_le_card"] {
        let hits = kb.search(query, &SearchOptions::default()).unwrap();
        let first = &hits[0];
        assert_eq!(
            first.finding.theorem_name.as_deref(),
            Some("card_bound"),
            "{query}"
        );
        assert_eq!(first.match_kind, MatchKind::Uses);
        assert_eq!(first.uses.as_deref(), Some("Finset.card_le_card"));
        assert!(hits
            .iter()
            .all(|h| h.finding.theorem_name.as_deref() != Some("sq_bound")));
    }
    // Another namespace's lemma of the same last name is not this one.
    assert!(kb
        .search("List.card_le_card", &SearchOptions::default())
        .unwrap()
        .iter()
        .all(|h| h.match_kind != MatchKind::Uses));

    let out = common::stdout_of(
        dir.path(),
        &[
            "search",
            "Finset.card_le_card",
            "--db",
            db.to_str().unwrap(),
        ],
    );
    let first_lines: Vec<&str> = out.lines().take(6).collect();
    assert!(first_lines[0].contains("card_bound"), "{out}");
    assert!(out.contains("Uses Finset.card_le_card"), "{out}");
}

#[test]
fn technique_is_the_proof_spine_not_a_nested_decide() {
    let dir = TempDir::new().unwrap();
    let files = [
        write(dir.path(), "slot101_erdos_1_result.lean", CARD),
        write(dir.path(), "slot103_erdos_2_result.lean", NLIN),
    ];
    let mut kb = Kb::open(&dir.path().join("knowledge.db")).unwrap();
    extract(&mut kb, &files);
    let technique = |name: &str| -> String {
        kb.connection()
            .query_row(
                "SELECT proof_technique FROM findings WHERE theorem_name = ?1",
                [name],
                |r| r.get(0),
            )
            .unwrap()
    };
    assert_eq!(technique("sq_bound"), "nonlinear arithmetic (nlinarith)");
    assert_eq!(technique("card_bound"), "key lemma Finset.card_le_card");
}

/// A version-2 database with the same theorem stored from two files migrates to one fact
/// with both sources.
#[test]
fn old_databases_merge_their_duplicates() {
    let dir = TempDir::new().unwrap();
    let path = dir.path().join("knowledge.db");
    {
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(include_str!("../schema/knowledge.sql"))
            .unwrap();
        conn.execute_batch(include_str!("../schema/migrations/002_deferred_fts.sql"))
            .unwrap();
        conn.execute_batch(
            "PRAGMA user_version = 2;
             INSERT INTO sources (id, path, content_hash, size_bytes, slot) VALUES
               (1, '/r/a.lean', 'h1', 10, 7), (2, '/r/b.lean', 'h2', 10, 8), (3, '/r/c.lean', 'h3', 10, 9);
             INSERT INTO findings (finding_type, title, description, theorem_name, theorem_statement, confidence, source_id, source_slot) VALUES
               ('theorem', 'foo (theorem)', 'd', 'foo', 'foo (n : ℕ) :  n ≤ n', 'medium', 1, 7),
               ('theorem', 'foo (theorem)', 'd', 'foo', 'foo (n : ℕ) :
                  n ≤ n', 'verified', 2, 8),
               ('theorem', 'foo (theorem)', 'd', 'foo', 'foo (m : ℕ) : m ≤ m', 'medium', 3, 9),
               ('failure', 'failed', 'd', NULL, NULL, 'high', 3, 9);",
        )
        .unwrap();
    }
    let kb = Kb::open(&path).unwrap();
    assert_eq!(kb.opened().upgraded_from, Some(2));
    assert_eq!(kb.schema_version().unwrap(), math_forge::kb::SCHEMA_VERSION);
    let rows = theorem_rows(&kb, "foo");
    // Binder names are kept: `m` and `n` stay two facts.
    assert_eq!(
        rows,
        vec![(1, "verified".to_string()), (3, "medium".to_string())]
    );
    let slots: Vec<_> = kb.fact_sources(1).unwrap().iter().map(|s| s.slot).collect();
    assert_eq!(slots, vec![Some(7), Some(8)]);
    kb.check_indexes().unwrap();
    let hits = kb.search("foo", &SearchOptions::default()).unwrap();
    assert_eq!(hits.len(), 2, "{hits:?}");
}

fn corpus_dir() -> PathBuf {
    std::env::var_os("MF_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"))
}

/// On the real corpus, distinct theorem rows equal distinct (name, normalized statement)
/// pairs, and every extracted theorem occurrence is kept as a source.
#[test]
fn corpus_theorem_rows_are_distinct_facts() {
    let corpus = corpus_dir();
    if !corpus.is_dir() {
        eprintln!("skipped: no corpus at {} (set MF_CORPUS)", corpus.display());
        return;
    }
    let files: Vec<PathBuf> = walkdir(&corpus);
    let dir = TempDir::new().unwrap();
    let mut kb = Kb::open(&dir.path().join("knowledge.db")).unwrap();
    extract(&mut kb, &files);
    let conn = kb.connection();
    let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    let rows = count("SELECT count(*) FROM findings WHERE finding_type = 'theorem'");
    let keys =
        count("SELECT count(DISTINCT fact_key) FROM findings WHERE finding_type = 'theorem'");
    let occurrences = count("SELECT count(*) FROM finding_sources");
    // Recompute the pairs from the stored text, independently of fact_key.
    let mut stmt = conn
        .prepare(
            "SELECT theorem_name, theorem_statement FROM findings WHERE finding_type = 'theorem'",
        )
        .unwrap();
    let pairs: std::collections::HashSet<(String, String)> = stmt
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
        .unwrap()
        .map(|p| {
            let (n, s) = p.unwrap();
            (n, s.split_whitespace().collect::<Vec<_>>().join(" "))
        })
        .collect();
    eprintln!(
        "theorem rows {rows}, distinct pairs {}, occurrences {occurrences}",
        pairs.len()
    );
    assert_eq!(rows, pairs.len() as i64);
    assert_eq!(rows, keys);
    assert!(
        occurrences > rows,
        "the corpus repeats theorems across files"
    );
    let uses = count("SELECT count(DISTINCT finding_id) FROM finding_uses");
    assert!(uses > 0);
    kb.check_indexes().unwrap();
}

fn walkdir(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "lean") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn header(uuid: &str) -> String {
    format!(
        "/-\nThis file was generated by Aristotle.\n\nLean version: leanprover/lean4:v4.24.0\n\
         Mathlib version: f897ebcf72cd16f89ab4577d0c826cd14afaafc7\n\
         This project request had uuid: {uuid}\n-/\n\n"
    )
}

/// Three attempts on one problem: two by nlinarith (one proven, one with three holes), one by
/// induction (proven). Strategies, failures and recommendations follow what happened.
#[test]
fn attempts_fill_strategies_and_recommendations_rank_by_observed_success() {
    let dir = TempDir::new().unwrap();
    let nlin_ok = format!("{}{NLIN}", header("aaaa-1"));
    let nlin_failed = format!(
        "{}import Mathlib\n\n\
         lemma a1 (x : ℝ) : 0 ≤ x ^ 2 := by\n  sorry\n\n\
         lemma a2 (x : ℝ) : 0 ≤ x ^ 4 := by\n  sorry\n\n\
         lemma a3 (x : ℝ) : 0 ≤ x ^ 6 := by\n  sorry\n\n\
         theorem sq_bound (a b : ℝ) (ha : 0 ≤ a) (hb : 0 ≤ b) : a * b ≤ (a ^ 2 + b ^ 2) / 2 := by\n  \
         nlinarith [a1 (a - b)]\n",
        header("aaaa-2")
    );
    let induct = format!(
        "{}import Mathlib\n\n\
         theorem sum_bound (n : ℕ) : n ≤ 2 ^ n := by\n  induction n with\n  \
         | zero => simp\n  | succ k ih => rw [pow_succ]; omega\n",
        header("aaaa-3")
    );
    let files = [
        write(dir.path(), "slot201_erdos_77_result.lean", &nlin_ok),
        write(dir.path(), "slot202_erdos_77_result.lean", &nlin_failed),
        write(dir.path(), "slot203_erdos_77_result.lean", &induct),
    ];
    let db = dir.path().join("knowledge.db");
    let mut kb = Kb::open(&db).unwrap();
    extract(&mut kb, &files);

    let strategies: Vec<(String, String, i64)> = {
        let mut stmt = kb
            .connection()
            .prepare("SELECT approach_name, outcome, attempts FROM strategies WHERE problem_id = 'erdos_77' ORDER BY 1")
            .unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    };
    assert_eq!(
        strategies,
        vec![
            ("induction".to_string(), "proven".to_string(), 1),
            (
                "nonlinear arithmetic (nlinarith)".to_string(),
                "proven".to_string(),
                2
            ),
        ]
    );
    // The failure carries the approach that failed.
    let approach: String = kb
        .connection()
        .query_row(
            "SELECT proof_technique FROM findings WHERE finding_type = 'failure' AND source_slot = 202",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(approach, "nonlinear arithmetic (nlinarith)");

    // Re-extraction adds no attempt.
    extract(&mut kb, &files);
    let n: i64 = kb
        .connection()
        .query_row("SELECT count(*) FROM attempts", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 3);

    let recs = kb.recommend("nt", 10).unwrap();
    let of = |name: &str| {
        recs.recommendations
            .iter()
            .find(|r| r.technique == name)
            .unwrap_or_else(|| panic!("{name}: {recs:?}"))
            .clone()
    };
    let nl = of("nonlinear arithmetic (nlinarith)");
    let ind = of("induction");
    assert_eq!((nl.successes, nl.failures), (1.0, 1.0));
    assert_eq!((ind.successes, ind.failures), (1.0, 0.0));
    assert!(ind.estimate > nl.estimate, "{recs:?}");

    let out = common::stdout_of(
        dir.path(),
        &["recommend", "nt", "--db", db.to_str().unwrap()],
    );
    assert!(out.contains("(1 of 1 attempts succeeded)"), "{out}");
    assert!(out.contains("(1 of 2 attempts succeeded)"), "{out}");
    eprintln!("{out}");

    // An input sketch (no Aristotle header) is no attempt.
    extract(
        &mut kb,
        &[write(dir.path(), "slot204_erdos_77_sketch.lean", NLIN)],
    );
    let n: i64 = kb
        .connection()
        .query_row("SELECT count(*) FROM attempts", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 3);
}

/// Measures, on the corpus, the share of proven theorems whose technique label is generic
/// (simplification, rewriting, term-mode proof, …) or names an incidental `decide`/`calc`
/// (one that is no top-level step of the proof), under the old rule (decisive tactics anywhere,
/// else the most used) and the spine rule. Prints both; the spine rule must do better on both.
#[test]
fn corpus_techniques_come_from_the_spine() {
    use math_forge::extract::{technique, uses};
    use math_forge::lean::{Outline, ParsedFile};
    let corpus = corpus_dir();
    if !corpus.is_dir() {
        eprintln!("skipped: no corpus at {} (set MF_CORPUS)", corpus.display());
        return;
    }
    let (mut total, mut old_generic, mut new_generic, mut old_incidental, mut new_incidental) =
        (0usize, 0usize, 0usize, 0usize, 0usize);
    for path in walkdir(&corpus) {
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let parsed = ParsedFile::parse(text);
        let outline = Outline::of("f.lean", &parsed);
        let proofs = uses::proofs(&parsed, &outline);
        for (decl, proof) in outline.declarations.iter().zip(&proofs) {
            if !matches!(decl.kind.as_str(), "theorem" | "lemma")
                || !decl.has_body()
                || decl.sorry_count > 0
            {
                continue;
            }
            let term = || {
                decl.tactics
                    .is_empty()
                    .then(|| "term-mode proof".to_string())
            };
            let old = technique::primary(&decl.tactics).or_else(term);
            let new = technique::of_proof(proof, &decl.tactics).or_else(term);
            total += 1;
            let incidental = |label: &Option<String>| {
                let head = match label.as_deref() {
                    Some("finite computation (decide)") => "decide",
                    Some("finite computation (native_decide)") => "native_decide",
                    Some("calculational proof") => "calc",
                    _ => return false,
                };
                !proof.spine.iter().any(|s| s.head == head)
            };
            let generic =
                |label: &Option<String>| label.as_deref().is_none_or(technique::is_generic);
            old_generic += usize::from(generic(&old));
            new_generic += usize::from(generic(&new));
            old_incidental += usize::from(incidental(&old));
            new_incidental += usize::from(incidental(&new));
        }
    }
    let pct = |n: usize| 100.0 * n as f64 / total.max(1) as f64;
    eprintln!(
        "proven theorem occurrences {total}: generic/none {:.1}% -> {:.1}%, incidental decide/calc {:.1}% -> {:.1}%",
        pct(old_generic),
        pct(new_generic),
        pct(old_incidental),
        pct(new_incidental)
    );
    assert!(total > 0);
    assert!(new_generic < old_generic);
    assert!(new_incidental < old_incidental);
    assert_eq!(new_incidental, 0);
}
