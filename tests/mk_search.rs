//! `mk search`: golden rankings on the fixture corpus, filters, duplicates, hostile input.

mod common;

use common::{build_kb, mk, mk_json};
use math_forge::kb::{
    content_hash, Confidence, FileItem, FindingType, Kb, NewFinding, SearchOptions, SourceRecord,
};

fn names(hits: &serde_json::Value) -> Vec<String> {
    hits.as_array()
        .unwrap()
        .iter()
        .map(|h| {
            h["theorem_name"]
                .as_str()
                .map_or_else(|| h["title"].as_str().unwrap().to_string(), str::to_string)
        })
        .collect()
}

/// The file of one theorem `name`, with the trust and dates a ranking test sets.
fn dated_theorem(
    name: &str,
    confidence: Confidence,
    stated: Option<&str>,
    modified: Option<i64>,
) -> FileItem {
    FileItem {
        source: SourceRecord {
            path: format!("/r/{name}.lean"),
            content_hash: content_hash(name.as_bytes()),
            size_bytes: 1,
            stated_date: stated.map(str::to_string),
            modified,
            ..Default::default()
        },
        findings: vec![NewFinding {
            finding_type: FindingType::Theorem,
            title: format!("{name} (theorem)"),
            theorem_name: Some(name.to_string()),
            confidence,
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn search(dir: &std::path::Path, db: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["search", "--db", db.to_str().unwrap()];
    all.extend_from_slice(args);
    mk_json(dir, &all)
}

#[test]
fn exact_theorem_name_ranks_first() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_kb(dir.path());
    let hits = search(dir.path(), &db, &["erdos_850_triple_factors"]);
    assert_eq!(names(&hits)[0], "erdos_850_triple_factors");
    assert_eq!(hits[0]["match"], "exact");
    assert_eq!(hits[0]["finding_type"], "theorem");
    assert_eq!(hits[0]["source_slot"], 614);
    assert!(
        hits[0]["score"].as_f64().unwrap() > 0.0,
        "an exact hit that also matched the text has a BM25 score"
    );
}

#[test]
fn problem_id_matches_however_it_is_typed() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_kb(dir.path());
    for q in [&["erdos_364"][..], &["Erdos-364"], &["erdos", "364"]] {
        let hits = search(dir.path(), &db, q);
        let first: Vec<&str> = hits
            .as_array()
            .unwrap()
            .iter()
            .take(2)
            .map(|h| h["problem_id"].as_str().unwrap())
            .collect();
        assert_eq!(first, ["erdos_364", "erdos_364"], "query {q:?}");
        assert_eq!(hits[0]["match"], "exact", "query {q:?}");
        // Among exact hits without a text match, theorems come before failures.
        assert_eq!(hits[0]["finding_type"], "theorem", "query {q:?}");
    }
}

#[test]
fn namespaced_name_is_exact_and_partial_names_are_found() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_kb(dir.path());
    let hits = search(dir.path(), &db, &["card_le_card"]);
    assert_eq!(names(&hits)[0], "Finset.card_le_card");
    assert_eq!(hits[0]["match"], "exact");

    // A partial identifier: substring of three names; porter stemming alone would not do this.
    let hits = search(dir.path(), &db, &["card_le", "--limit", "10"]);
    let got = names(&hits);
    assert_eq!(
        &got[..3],
        [
            "Finset.card_le_card",
            "card_le_one_iff_subsingleton",
            "Finset.card_le_card_of_injOn"
        ]
        .map(String::from),
        "{got:?}"
    );
    assert!(hits.as_array().unwrap()[..3]
        .iter()
        .all(|h| h["match"] == "identifier"));

    let hits = search(dir.path(), &db, &["inset.card_le_card_of_inj"]);
    assert_eq!(names(&hits), ["Finset.card_le_card_of_injOn"]);
}

#[test]
fn same_statement_in_many_slots_is_shown_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_kb(dir.path());
    let hits = search(dir.path(), &db, &["Finset.card_le_card_of_injOn"]);
    assert_eq!(hits.as_array().unwrap().len(), 1, "{hits:#}");
    let slots: Vec<i64> = hits[0]["also_in_slots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_i64().unwrap())
        .collect();
    let own = hits[0]["source_slot"].as_i64().unwrap();
    let mut all = slots.clone();
    all.push(own);
    all.sort();
    assert_eq!(
        all,
        [614, 615, 620, 633],
        "statements differing only in line breaks are the same"
    );
    assert_eq!(hits[0]["duplicates"], 3);

    let text = common::stdout_of(
        dir.path(),
        &["search", "--db", db.to_str().unwrap(), "injOn"],
    );
    assert_eq!(
        text.matches("Finset.card_le_card_of_injOn (theorem)")
            .count(),
        1,
        "{text}"
    );
    assert!(text.contains("Also in slots"), "{text}");
}

#[test]
fn words_stems_prefixes_and_phrases() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_kb(dir.path());
    // Porter: "residues" finds "residue"; title weight puts the QR theorem first.
    assert_eq!(
        names(&search(dir.path(), &db, &["quadratic", "residues"]))[0],
        "qr_euler_criterion_mod_p"
    );
    // Prefix: "induct" finds "induction".
    let hits = search(dir.path(), &db, &["induct", "--type", "technique"]);
    assert_eq!(hits[0]["title"], "Technique: induction (slot614)");
    // A quoted phrase must be adjacent.
    assert_eq!(
        search(dir.path(), &db, &["\"criterion decides\""])
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        search(dir.path(), &db, &["\"decides criterion\""])
            .as_array()
            .unwrap()
            .len(),
        0
    );
    // OR and NOT.
    let hits = search(
        dir.path(),
        &db,
        &["pigeonhole", "OR", "link", "--limit", "10"],
    );
    let mut types: Vec<&str> = hits
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["finding_type"].as_str().unwrap())
        .collect();
    types.sort();
    assert_eq!(types, ["failure", "false_lemma"]);
    let hits = search(
        dir.path(),
        &db,
        &["theorem", "NOT", "card", "--limit", "50"],
    );
    assert!(
        !names(&hits).iter().any(|n| n.contains("card")),
        "{:?}",
        names(&hits)
    );
    assert!(!hits.as_array().unwrap().is_empty());
}

#[test]
fn filters_by_domain_and_type() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_kb(dir.path());
    let hits = search(
        dir.path(),
        &db,
        &["theorem", "--domain", "number_theory", "--limit", "50"],
    );
    assert!(!hits.as_array().unwrap().is_empty());
    assert!(hits
        .as_array()
        .unwrap()
        .iter()
        .all(|h| h["domain_id"] == "nt"));
    let hits = search(
        dir.path(),
        &db,
        &["local_cover_le_2", "--type", "false_lemma"],
    );
    assert_eq!(hits[0]["counterexample"], "K4 with a pendant triangle");
    let out = mk(dir.path())
        // (topology joined the taxonomy in schema version 7; this domain is unknown.)
        .args(["search", "x", "--domain", "astrology", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown domain 'astrology'") && err.contains("combinatorics"),
        "{err}"
    );
}

#[test]
fn json_results_carry_the_finding_columns_and_a_score() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_kb(dir.path());
    let hits = search(dir.path(), &db, &["Euler", "criterion"]);
    let h = &hits[0];
    for key in [
        "id",
        "finding_type",
        "domain_id",
        "title",
        "description",
        "problem_id",
        "source_slot",
        "source_submission_uuid",
        "source_file",
        "theorem_name",
        "theorem_statement",
        "proof_technique",
        "mathlib_imports",
        "proof_lines",
        "counterexample",
        "why_failed",
        "avoid_pattern",
        "confidence",
        "created_at",
        "updated_at",
        "tags",
        "notes",
        "score",
        "match",
        "also_in_slots",
    ] {
        assert!(h.get(key).is_some(), "missing {key} in {h:#}");
    }
    assert_eq!(
        h["source_file"],
        "results/slot702_ft_p3_q71mod72_result.lean"
    );
    assert_eq!(
        h["source_submission_uuid"], "uuid-702",
        "inherited from the source"
    );
}

/// Text any user might type. None may surface an FTS5 error or fail.
const HOSTILE: &[&str] = &[
    "\"",
    "\"unterminated phrase",
    "a:b",
    "title:erdos",
    "{title description}: erdos",
    "(",
    ")",
    ")))(((",
    "*",
    "card*",
    "*card",
    "-",
    "-card",
    "--",
    "NOT",
    "AND",
    "OR",
    "AND OR NOT NEAR",
    "NEAR(card le, 3)",
    "card NEAR le",
    "x OR",
    "OR x",
    "NOT NOT x",
    "'; DROP TABLE findings; --",
    "SELECT * FROM findings",
    "1=1 OR '1'='1'",
    "∀ n ∈ ℕ, n ≤ n ^ 2",
    "ℕ",
    "≤",
    "%",
    "_",
    "%_\\",
    "^",
    "$",
    "\\",
    "e\u{301}",
    "🦀 proof",
    "עברית",
    "a\tb\nc",
    "\u{7f}",
    "x \"y",
    "\"\"",
    "\"\" \"\"",
    "+card",
    "card^2",
    "[card]",
    "card.",
    ".",
    "erdos_850\"",
    "Finset.card_le_card)",
    "rank",
    "bm25(findings_fts)",
    "findings_fts MATCH 'x'",
];

#[test]
fn hostile_queries_never_fail() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_kb(dir.path());
    for q in HOSTILE {
        let out = mk(dir.path())
            .args(["search", "--db"])
            .arg(&db)
            .arg("--json")
            .arg("--")
            .arg(q)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "query {q:?} failed: {stderr}");
        assert!(stderr.is_empty(), "query {q:?} printed: {stderr}");
        let lines: Result<Vec<serde_json::Value>, _> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(serde_json::from_str)
            .collect();
        assert!(lines.is_ok(), "query {q:?}");
    }
    // And in text mode, the words of SQL fragments are just words.
    let out = mk(dir.path())
        .args(["search", "--db"])
        .arg(&db)
        .args(["DROP", "TABLE", "findings"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("No facts match"));
    let kb = Kb::open_existing(&db).unwrap();
    // The fixture's 14 findings hold 11 distinct ones (one theorem stored from 4 files).
    assert_eq!(kb.finding_count().unwrap(), 11);
}

#[test]
fn hostile_queries_through_the_library_including_nul_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_kb(dir.path());
    let kb = Kb::open_existing(&db).unwrap();
    let opts = SearchOptions {
        limit: 5,
        domain: None,
        finding_type: Some(FindingType::Theorem),
    };
    for q in HOSTILE {
        kb.search(q, &opts).unwrap_or_else(|e| panic!("{q:?}: {e}"));
    }
    assert!(
        !kb.search("erdos\0_850", &opts).unwrap().is_empty()
            || kb.search("erdos\0_850", &opts).is_ok()
    );
    kb.search(&"\0".repeat(10), &opts).unwrap();
    kb.search(&"card ".repeat(10_000), &opts).unwrap();
    // Random mixes of FTS5 syntax characters.
    let alphabet: Vec<char> = "ab c\"'*:()-^{}+NOTANDORNEAR_.,;%\\∀ℕ≤\0\u{301}"
        .chars()
        .collect();
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..2_000 {
        let len = (state % 24) as usize;
        let q: String = (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                alphabet[(state % alphabet.len() as u64) as usize]
            })
            .collect();
        kb.search(&q, &SearchOptions::default())
            .unwrap_or_else(|e| panic!("{q:?}: {e}"));
    }
}

#[test]
fn text_output_has_badges_rules_and_no_color_when_piped() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_kb(dir.path());
    let text = common::stdout_of(
        dir.path(),
        &[
            "search",
            "--db",
            db.to_str().unwrap(),
            "local_cover_le_2",
            "OR",
            "erdos_850_triple_factors",
        ],
    );
    assert!(
        !text.contains('\x1b'),
        "no escapes when stdout is not a terminal:\n{text}"
    );
    assert!(text.contains("[FALSE] FALSE: local_cover_le_2\n"), "{text}");
    assert!(
        text.contains("[PROVEN] erdos_850_triple_factors (theorem)\n"),
        "{text}"
    );
    assert!(text.contains("\n---\n"), "{text}");
    assert!(
        text.contains("  Counterexample: K4 with a pendant triangle\n"),
        "{text}"
    );
    // The result's own date (this fixture's files carry none: when they were extracted, said
    // so) and its file.
    assert!(
        text.contains("  Domain: nt | Slot: 614 | Problem: erdos_850 | verified | extracted "),
        "{text}"
    );
    assert!(text.contains(" (file date unknown)\n"), "{text}");
    assert!(
        text.contains("  File: results/slot614_erdos_850_triple_factors_result.lean\n"),
        "{text}"
    );
}

#[test]
fn empty_kb_gives_a_hint_and_exit_zero() {
    let dir = tempfile::tempdir().unwrap();
    mk(dir.path()).arg("init").assert().success();
    let out = mk(dir.path())
        .args(["search", "anything"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("knowledge base is empty") && text.contains("mk init --from-tracking"),
        "{text}"
    );
    let v = mk_json(dir.path(), &["search", "anything"]);
    assert_eq!(v, serde_json::json!([]));
}

/// At equal relevance the more trustworthy fact comes first, then the newer result (the date
/// its file states, else its modification time), never the order of extraction; each hit
/// carries that date and says how it is known.
#[test]
fn equal_matches_rank_by_trust_then_result_date_never_extraction_order() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("knowledge.db");
    let mut kb = Kb::open(&db).unwrap();
    // Extracted in this order: ids grow down the list.
    let files = [
        (
            "new_verified",
            Confidence::Verified,
            Some("2026-03-01"),
            None,
        ),
        (
            "old_verified",
            Confidence::Verified,
            Some("2025-01-01T08:00:00+02:00"),
            None,
        ),
        (
            "newest_medium",
            Confidence::Medium,
            None,
            Some(1_780_000_000),
        ),
        ("high_one", Confidence::High, None, None),
    ];
    let items = files.iter().map(|&(name, confidence, stated, modified)| {
        let mut item = dated_theorem(name, confidence, stated, modified);
        item.findings[0].description = format!("uses the card lemma: {name}");
        item.findings[0].theorem_statement = Some(format!("{name} : s.card ≤ t.card"));
        item.findings[0].uses = vec!["Finset.card_le_card".into()];
        item
    });
    kb.write_batch(items).unwrap();
    drop(kb);

    let hits = search(dir.path(), &db, &["Finset.card_le_card", "-n", "10"]);
    assert_eq!(
        names(&hits),
        ["new_verified", "old_verified", "high_one", "newest_medium"],
        "{hits:#}"
    );
    assert!(hits
        .as_array()
        .unwrap()
        .iter()
        .all(|h| h["match"] == "uses"));
    assert_eq!(
        hits[0]["result_date"],
        serde_json::json!({"date": "2026-03-01 00:00:00", "from": "stated"})
    );
    // A stated offset is converted to UTC.
    assert_eq!(hits[1]["result_date"]["date"], "2025-01-01 06:00:00");
    assert_eq!(
        hits[3]["result_date"],
        serde_json::json!({"date": "2026-05-28 20:26:40", "from": "modified"})
    );
    // A file stored without either date: when it was extracted, said so.
    assert_eq!(hits[2]["result_date"]["from"], "extracted");
}

/// Text matches of exactly equal relevance (the same BM25 score) are ordered like any other
/// tie: the more trustworthy first, then the newer result. (Ranking reads a text match's row
/// only when it is shown or must be told apart from another one this way.)
#[test]
fn equal_text_scores_rank_by_trust_then_result_date() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("knowledge.db");
    let mut kb = Kb::open(&db).unwrap();
    // Extracted in this order: ids grow down the list. Every text has the same words.
    let files = [
        ("zeta_a", Confidence::Verified, Some("2026-03-01"), None),
        ("zeta_b", Confidence::Verified, Some("2025-01-01"), None),
        ("zeta_c", Confidence::Medium, None, Some(1_780_000_000)),
        ("zeta_d", Confidence::High, None, None),
        ("zeta_e", Confidence::Low, Some("2026-04-01"), None),
    ];
    let items = files.iter().map(|&(name, confidence, stated, modified)| {
        let mut item = dated_theorem(name, confidence, stated, modified);
        item.findings[0].description = format!("the quokka bound holds for {name}");
        item.findings[0].theorem_statement = Some(format!("{name} : quokka n ≤ n"));
        item
    });
    kb.write_batch(items).unwrap();
    drop(kb);

    let hits = search(dir.path(), &db, &["quokka", "-n", "10"]);
    assert_eq!(
        names(&hits),
        ["zeta_a", "zeta_b", "zeta_d", "zeta_c", "zeta_e"],
        "{hits:#}"
    );
    let hits = hits.as_array().unwrap();
    assert!(hits.iter().all(|h| h["match"] == "text"), "{hits:#?}");
    assert!(
        hits.iter().all(|h| h["score"] == hits[0]["score"]),
        "the scores must tie for this test to mean anything: {hits:#?}"
    );
    // Only the first `-n` are read and shown: the same order, cut.
    let two = search(dir.path(), &db, &["quokka", "-n", "2"]);
    assert_eq!(names(&two), ["zeta_a", "zeta_b"]);
}

/// `mf extract` reads a file's own date from its leading comment, else its modification time,
/// and `mk search` shows it with the file.
#[test]
fn search_shows_each_results_file_and_own_date() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    std::fs::create_dir(&results).unwrap();
    std::fs::write(
        results.join("dated.lean"),
        "/-\nGenerated: 2026-01-04T16:15:34.654492\n-/\ntheorem dated_fact : 1 + 1 = 2 := by norm_num\n",
    )
    .unwrap();
    std::fs::write(
        results.join("undated.lean"),
        "theorem undated_fact : 2 + 2 = 4 := by norm_num\n",
    )
    .unwrap();
    let db = dir.path().join("k.db");
    let mut extract = assert_cmd::Command::new(env!("CARGO_BIN_EXE_mf"));
    common::isolate(&mut extract, dir.path());
    extract
        .current_dir(dir.path())
        .args(["extract", "--db", db.to_str().unwrap(), "--all", "results"])
        .assert()
        .success();
    let text = common::stdout_of(
        dir.path(),
        &[
            "search",
            "--db",
            db.to_str().unwrap(),
            "dated_fact",
            "-n",
            "1",
        ],
    );
    assert!(
        text.contains(
            "| dated 2026-01-04 16:15 (stated in the file)\n  File: results/dated.lean\n"
        ),
        "{text}"
    );
    let text = common::stdout_of(
        dir.path(),
        &[
            "search",
            "--db",
            db.to_str().unwrap(),
            "undated_fact",
            "-n",
            "1",
        ],
    );
    assert!(text.contains("| file modified 20"), "{text}");
    assert!(text.contains("  File: results/undated.lean\n"), "{text}");
}
