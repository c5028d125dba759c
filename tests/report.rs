//! `mk report`: the page's numbers against the `mk` queries they come from, its options and
//! errors, HTML escaping, and the page in a real browser (headless Chromium; skipped, visibly,
//! where none is installed).
//!
//! The knowledge base is `fixtures/report/` extracted by `mf extract`, with
//! `fixtures/report/tracking.sql` as tracking.db: two problems, five attempts Aristotle returned
//! (proven, failed, budget reached, partial, failed), four of them dated by tracking.db, one
//! by extraction time; a session journaled the way the hooks do, and a recorded failure.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{fixture, mk, mk_json};
use math_forge::kb::{Event, EventKind, Kb, ReportOptions};
use serde_json::Value;
use tempfile::TempDir;

struct Setup {
    dir: TempDir,
    db: PathBuf,
    tracking: PathBuf,
}

impl Setup {
    fn args<'a>(&'a self, rest: &[&'a str]) -> Vec<&'a str> {
        let mut v = vec![
            "--db",
            self.db.to_str().unwrap(),
            "--tracking",
            self.tracking.to_str().unwrap(),
        ];
        v.extend_from_slice(rest);
        v
    }

    fn json(&self, rest: &[&str]) -> Value {
        mk_json(self.dir.path(), &self.args(rest))
    }

    /// `mk report` with `extra` arguments; the page.
    fn page(&self, extra: &[&str]) -> String {
        let out_path = self.dir.path().join("report.html");
        let mut args = self.args(&["report", "-o", out_path.to_str().unwrap()]);
        args.extend_from_slice(extra);
        let out = mk(self.dir.path()).args(&args).output().unwrap();
        assert!(
            out.status.success(),
            "mk report failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::read_to_string(out_path).unwrap()
    }
}

fn extract(db: &Path, dirs: &[&str]) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mf"));
    cmd.arg("extract")
        .arg("-q")
        .arg("--db")
        .arg(db)
        .arg("--all");
    for d in dirs {
        cmd.arg(fixture(d));
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "mf extract: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn setup() -> Setup {
    let dir = TempDir::new().unwrap();
    let db = dir.path().join("knowledge.db");
    extract(&db, &["report"]);
    let tracking = dir.path().join("tracking.db");
    rusqlite::Connection::open(&tracking)
        .unwrap()
        .execute_batch(&std::fs::read_to_string(fixture("report/tracking.sql")).unwrap())
        .unwrap();
    // A session as the hooks journal it: a hole opened and closed on ramsey_pair.
    let mut kb = Kb::open(&db).unwrap();
    let event = |kind, holes| Event {
        session_id: "session-report-1".into(),
        file: "/work/ramsey_pair.lean".into(),
        declaration: "ramsey_pair".into(),
        kind: Some(kind),
        holes,
        ..Default::default()
    };
    kb.journal(&[
        event(EventKind::HoleOpened, 1),
        event(EventKind::HoleClosed, 0),
    ])
    .unwrap();
    kb.set_session_problem("session-report-1", "ramsey_pair")
        .unwrap();
    drop(kb);
    let s = Setup { dir, db, tracking };
    s.json(&[
        "record",
        "failure",
        "--problem",
        "twin_bound",
        "--approach",
        "pigeonhole",
        "--why",
        "bound too weak",
    ]);
    s
}

// ---- reading the page -------------------------------------------------------------------

/// The text from `start` (exclusive) to the next `end`.
fn after<'a>(s: &'a str, start: &str) -> &'a str {
    let i = s
        .find(start)
        .unwrap_or_else(|| panic!("{start:?} not on the page"));
    &s[i + start.len()..]
}

fn until<'a>(s: &'a str, end: &str) -> &'a str {
    &s[..s.find(end).unwrap_or(s.len())]
}

/// The body rows of the table with this id.
fn rows<'a>(html: &'a str, table: &str) -> Vec<&'a str> {
    let t = until(after(html, &format!("id=\"{table}\"")), "</table>");
    let body = after(t, "<tbody>");
    body.split("<tr")
        .skip(1)
        .map(|r| until(r, "</tr>"))
        .collect()
}

/// An attribute's value, unescaped.
fn attr(s: &str, name: &str) -> Option<String> {
    let i = s.find(&format!(" {name}=\""))?;
    let v = until(&s[i + name.len() + 3..], "\"");
    Some(unescape(v))
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The number in the cell marked `data-k="k"`.
fn cell(row: &str, k: &str) -> f64 {
    let v = until(after(row, &format!("data-k=\"{k}\">")), "<");
    v.parse()
        .unwrap_or_else(|_| panic!("cell {k} is {v:?} in {row}"))
}

// ---- the problems table: its rows carry no keys; their cells are read by column ----------

/// A problems-table row's problem id (its link's text).
fn pid(row: &str) -> String {
    unescape(until(after(cells(row)[0], ">"), "</a>"))
}

/// A problems-table row's domain.
fn pdomain(row: &str) -> String {
    text(cells(row)[1])
}

/// A problems-table row's status (its badge; `None` where it shows none).
fn pstatus(row: &str) -> Option<String> {
    let badge = unescape(until(after(cells(row)[3], ">"), "<"));
    (badge != "—").then_some(badge)
}

/// The confidence shown beside a problems-table row's status.
fn pconfidence(row: &str) -> Option<String> {
    let cell = cells(row)[3];
    cell.find("<small>")
        .map(|i| unescape(until(&cell[i + "<small>".len()..], "<")))
}

/// A problems-table row's count of attempts of kind `k` (`proven` … `failed`, `total`).
fn pcount(row: &str, k: &str) -> f64 {
    let col = ["proven", "partial", "budget_reached", "failed", "total"]
        .iter()
        .position(|c| *c == k)
        .unwrap();
    let v = text(cells(row)[4 + col]);
    v.trim()
        .parse()
        .unwrap_or_else(|_| panic!("count {k} is {v:?} in {row}"))
}

/// The section of problem `id`.
fn section<'a>(html: &'a str, id: &str) -> &'a str {
    let s = after(html, &format!("class=\"problem\" id=\"p-{id}\""));
    until(s, "<section class=\"problem\"")
}

/// The finding ids listed under a section's heading (`<ul class="items KIND">`).
fn listed(section: &str, kind: &str) -> Vec<i64> {
    let Some(i) = section.find(&format!("<ul class=\"items {kind}\">")) else {
        return Vec::new();
    };
    until(&section[i..], "</ul>")
        .split("<li data-finding=\"")
        .skip(1)
        .map(|s| until(s, "\"").parse().unwrap())
        .collect()
}

fn query_count(s: &Setup, sql: &str) -> i64 {
    let rows = s.json(&["query", sql]);
    rows[0]["n"].as_i64().unwrap()
}

// ---- the numbers --------------------------------------------------------------------------

#[test]
fn numbers_on_the_page_are_the_mk_queries() {
    let s = setup();
    let html = s.page(&[]);
    let stats = s.json(&["stats"]);

    // Overview: the cards and the problems by status are `mk stats`'s.
    let card = |id: &str| -> i64 {
        until(after(&html, &format!("id=\"{id}\" data-v=\"")), "\"")
            .parse()
            .unwrap()
    };
    assert_eq!(card("n-all-facts"), stats["facts"].as_i64().unwrap());
    assert_eq!(
        card("n-occurrences"),
        stats["occurrences"].as_i64().unwrap()
    );
    assert_eq!(
        card("n-sources"),
        stats["freshness"]["files"].as_i64().unwrap()
    );
    assert_eq!(card("n-problems"), stats["problems"].as_i64().unwrap());
    let on_page: BTreeMap<String, i64> = rows(&html, "status-ours-table")
        .iter()
        .map(|r| (attr(r, "data-key").unwrap(), cell_n(r)))
        .collect();
    let from_stats: BTreeMap<String, i64> = stats["problems_by_status"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["key"].as_str().unwrap_or("none").to_string(),
                c["count"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(on_page, from_stats);
    // The literature's status, as the fixtures' `@[category research open]` attributes state
    // it: both problems are open in the literature, as the knowledge base records.
    let lit = rows(&html, "status-literature-table");
    let recorded = query_count(
        &s,
        "SELECT count(*) AS n FROM problems WHERE literature_status = 'open'",
    );
    assert_eq!(recorded, stats["problems"].as_i64().unwrap());
    assert_eq!(lit.len(), 1);
    assert_eq!(attr(lit[0], "data-key").as_deref(), Some("open"));
    assert_eq!(cell_n(lit[0]), recorded);

    // Attempts and their dates: four by tracking.db, one (slot953, no submission) by the
    // file's modification time; none states a date of its own, none falls back to extraction.
    let attempts = query_count(&s, "SELECT count(*) AS n FROM attempts");
    assert_eq!(attempts, 5);
    assert_eq!(card("n-attempts"), attempts);
    let dating = until(after(&html, "id=\"dating\""), "</p>");
    let by_basis: Vec<&str> = dating
        .split("data-v=\"")
        .skip(1)
        .map(|rest| until(rest, "\""))
        .collect();
    assert_eq!(by_basis, ["4", "0", "1", "0"], "{dating}");
    // Weeks (Monday first): slot951 on 2025-01-02, slot954/955 on 01-08/09, slot952 on 01-15.
    let weeks: BTreeMap<String, &str> = rows(&html, "weeks-table")
        .into_iter()
        .map(|r| (until(after(r, "<td>"), "<").to_string(), r))
        .collect();
    let week = |w: &str, k: &str| cell(weeks[w], k) as i64;
    assert_eq!(week("2024-12-30", "failed"), 1);
    assert_eq!(
        (week("2025-01-06", "partial"), week("2025-01-06", "failed")),
        (1, 1)
    );
    assert_eq!(week("2025-01-13", "proven"), 1);
    let total: f64 = weeks.values().map(|r| cell(r, "total")).sum();
    assert_eq!(total as i64, attempts);
    let budget: f64 = weeks.values().map(|r| cell(r, "budget_reached")).sum();
    assert_eq!(budget, 1.0, "slot953's header says the budget was reached");

    // Facts proven: the verified theorems, the last total of the chart's table.
    let facts = query_count(
        &s,
        "SELECT count(*) AS n FROM findings WHERE finding_type = 'theorem' AND confidence = 'verified'",
    );
    assert_eq!(card("n-facts"), facts);
    let fact_rows = rows(&html, "facts-table");
    let last = fact_rows.last().unwrap();
    assert!(
        last.contains("2025-01-15"),
        "first proven by slot952: {last}"
    );
    assert!(
        last.ends_with(&format!("<td class=\"n\">{facts}</td>")),
        "{last}"
    );

    // The problems table: every problem, with `mk find`'s domain and status, and attempts as
    // the attempts table counts them.
    let problems: BTreeSet<String> = s
        .json(&["query", "SELECT id FROM problems"])
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    let table = rows(&html, "problems-table");
    let ids: BTreeSet<String> = table.iter().map(|r| pid(r)).collect();
    assert_eq!(ids, problems);
    for row in &table {
        let id = pid(row);
        let find = s.json(&["find", &id]);
        assert_eq!(
            pdomain(row),
            find["problem"]["domain_id"].as_str().unwrap_or("unknown")
        );
        assert_eq!(pstatus(row).as_deref(), find["problem"]["status"].as_str());
        let extracted: i64 = find["strategies"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|st| {
                st["learned"]
                    .as_str()
                    .is_some_and(|l| l.starts_with("extracted:"))
            })
            .map(|st| st["attempts"].as_i64().unwrap())
            .sum();
        assert_eq!(pcount(row, "total") as i64, extracted, "{id}");
        let outcome = |o: &str| {
            query_count(
                &s,
                &format!("SELECT count(*) AS n FROM attempts WHERE problem_id = '{id}' AND outcome = '{o}'"),
            )
        };
        assert_eq!(pcount(row, "proven") as i64, outcome("proven"), "{id}");
        assert_eq!(
            (pcount(row, "partial") + pcount(row, "budget_reached") + pcount(row, "failed")) as i64,
            outcome("partial") + outcome("failed"),
            "{id}"
        );
    }
    let ramsey = table.iter().find(|r| pid(r) == "ramsey_pair").unwrap();
    assert_eq!(
        ["proven", "partial", "budget_reached", "failed"].map(|k| pcount(ramsey, k) as i64),
        [1, 0, 1, 1]
    );
    assert!(
        ramsey.contains("slot952"),
        "best result: the proven attempt: {ramsey}"
    );

    // Techniques: `mk recommend DOMAIN`'s successes and failures, every one with evidence.
    let tech = rows(&html, "techniques-table");
    let domains: BTreeSet<String> = tech
        .iter()
        .map(|r| attr(r, "data-domain").unwrap())
        .collect();
    assert!(
        domains.contains("nt") && domains.contains("combinatorics"),
        "{domains:?}"
    );
    let mut seen = 0;
    for domain in &domains {
        let recs = s.json(&["recommend", domain, "-n", "1000"]);
        for rec in recs["recommendations"].as_array().unwrap() {
            let (succ, fail) = (
                rec["successes"].as_f64().unwrap(),
                rec["failures"].as_f64().unwrap(),
            );
            if succ + fail == 0.0 {
                continue;
            }
            let name = rec["technique"].as_str().unwrap();
            let row = tech
                .iter()
                .find(|r| {
                    attr(r, "data-domain").as_deref() == Some(domain.as_str())
                        && attr(r, "data-technique").as_deref() == Some(name)
                })
                .unwrap_or_else(|| panic!("{domain}/{name} missing from the page"));
            assert_eq!(cell(row, "successes"), succ, "{domain}/{name}");
            assert_eq!(cell(row, "failures"), fail, "{domain}/{name}");
            assert_eq!(cell(row, "n"), succ + fail);
            seen += 1;
        }
    }
    assert_eq!(
        seen,
        tech.len(),
        "the page lists only what mk recommend counts"
    );

    // Failures: `mk strategies`'s outcome counts, and what later proved the problem.
    let strategies = s.json(&["strategies", "-n", "1000"]);
    let failures = rows(&html, "failures-table");
    assert!(!failures.is_empty());
    for row in &failures {
        let approach = attr(row, "data-approach").unwrap();
        let a = strategies["approaches"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["approach"] == approach.as_str())
            .unwrap();
        for k in ["failed", "partial", "proven"] {
            assert_eq!(
                cell(row, k) as i64,
                a[k].as_i64().unwrap(),
                "{approach} {k}"
            );
        }
    }
    let omega = failures
        .iter()
        .find(|r| r.contains("data-approach=\"linear arithmetic (omega)\""))
        .unwrap();
    assert!(
        omega.contains("key lemma three_le_six (1)"),
        "omega failed on ramsey_pair on 2025-01-02; slot952 proved it on 2025-01-15: {omega}"
    );
    assert!(failures
        .iter()
        .any(|r| r.contains("data-approach=\"pigeonhole\"")));

    // Sections: `mk context`'s lists, in its order (facts: the first two, less a restatement
    // of the problem's statement in the file its status rests on, which the proof line says).
    for id in &problems {
        let sec = section(&html, id);
        let ctx = s.json(&["context", id, "-n", "3"]);
        let ids = |k: &str| -> Vec<i64> {
            ctx[k]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["id"].as_i64().unwrap())
                .collect()
        };
        let facts = listed(sec, "facts");
        assert!(facts.len() <= 2, "{id} facts");
        let mut ranked = ids("facts").into_iter();
        for f in &facts {
            assert!(
                ranked.any(|r| r == *f),
                "{id} facts {facts:?} out of mk context's order"
            );
        }
        assert_eq!(
            listed(sec, "failed"),
            ids("failed_approaches"),
            "{id} failures"
        );
        assert_eq!(
            listed(sec, "false"),
            ids("false_lemmas"),
            "{id} false lemmas"
        );
        // The most similar problem: mk context's first that shares constants.
        let similar: Vec<String> = ctx["similar_problems"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["shared_constants"].as_i64().unwrap() > 0)
            .take(1)
            .map(|p| p["id"].as_str().unwrap().to_string())
            .collect();
        let on_page: Vec<String> = sec
            .split_once("<p class=\"similar\">")
            .map(|(_, p)| until(p, "</p>"))
            .into_iter()
            .flat_map(|p| p.split("<a href=").skip(1))
            .map(|a| unescape(until(after(a, ">"), "<")))
            .collect();
        assert_eq!(on_page, similar, "{id} similar");
    }
    let ramsey = section(&html, "ramsey_pair");
    assert!(
        ramsey.contains("ramsey_pair (n : ℕ) (h : 6 ≤ n) : 3 ≤ n"),
        "statement"
    );
    assert!(
        ramsey.contains("Stated in <code>ramsey_pair.lean</code>")
            && !ramsey.contains("theorem <code>ramsey_pair</code>"),
        "its source, named after the theorem (which it does not repeat)"
    );
    // twin_bound has no input: its statement is the theorem a result's catalogue attribute
    // marks, and the page names that file and theorem, as `mk find` does.
    let twin = section(&html, "twin_bound");
    let find = s.json(&["find", "twin_bound"]);
    let source = find["problem"]["statement_source"].as_str().unwrap();
    let file = std::path::Path::new(source)
        .file_name()
        .unwrap()
        .to_str()
        .unwrap();
    assert!(
        twin.contains("twin_bound (n : ℕ) : n ≤ n + 2")
            && twin.contains(&format!(
                "Stated in <code>{file}</code>, theorem <code>twin_bound</code>"
            )),
        "{twin}"
    );

    // The session the hooks journaled.
    let sessions = rows(&html, "sessions-table");
    assert_eq!(sessions.len(), 1);
    assert!(
        sessions[0].contains("session-report-1") && sessions[0].contains("href=\"#p-ramsey_pair\"")
    );
    assert_eq!(cell(sessions[0], "events") as i64, 2);
    assert_eq!(cell(sessions[0], "holes_closed") as i64, 1);
}

/// The `n` cell of a two-column count table.
fn cell_n(row: &str) -> i64 {
    until(after(row, "<td class=\"n\">"), "<").parse().unwrap()
}

#[test]
fn problem_and_since_narrow_the_page() {
    let s = setup();
    let one = s.page(&["--problem", "Ramsey-Pair"]);
    let table = rows(&one, "problems-table");
    assert_eq!(table.len(), 1);
    assert!(pid(table[0]) == "ramsey_pair");
    assert!(!one.contains("id=\"p-twin_bound\""));
    assert!(one.contains("problem ramsey_pair"));

    let recent = s.page(&["--since", "2025-01-09"]);
    let table = rows(&recent, "problems-table");
    let row = |id: &str| *table.iter().find(|r| pid(r) == id).unwrap();
    // ramsey_pair: slot952 (01-15) and slot953 (modified today) count, slot951 (01-02) not.
    assert_eq!(
        ["proven", "partial", "budget_reached", "failed"]
            .map(|k| pcount(row("ramsey_pair"), k) as i64),
        [1, 0, 1, 0]
    );
    // twin_bound: slot955 (01-09) only.
    assert_eq!(pcount(row("twin_bound"), "total") as i64, 1);
    assert!(!rows(&recent, "weeks-table")
        .iter()
        .any(|r| r.contains("2024-12-30")));

    // Nothing since tomorrow: no attempts, no problems, the page still renders.
    let later = s.page(&["--since", "2999-01-01"]);
    assert!(rows(&later, "problems-table").is_empty());
    assert!(later.contains("no dated attempts"));

    for (args, expect) in [
        (
            &["--problem", "ramsey_pear"][..],
            "no problem ramsey_pear; nearest: ramsey_pair",
        ),
        (&["--since", "yesterday"][..], "YYYY-MM-DD"),
    ] {
        let mut all = s.args(&["report", "-o", "x.html"]);
        all.extend_from_slice(args);
        let out = mk(s.dir.path()).args(&all).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(expect) && err.trim_end().lines().count() == 1,
            "{err}"
        );
        assert!(!s.dir.path().join("x.html").exists());
    }
}

#[test]
fn text_from_the_knowledge_base_is_escaped() {
    let s = setup();
    let hostile = "<script>alert(1)</script>\"'&";
    s.json(&[
        "record",
        "failure",
        "--problem",
        hostile,
        "--approach",
        "\"><img src=x onerror=alert(2)>",
        "--why",
        "</pre></code><script>alert(3)</script>",
        "--domain",
        "nt",
        "--new-problem",
    ]);
    s.json(&[
        "record",
        "fact",
        "--problem",
        hostile,
        "--text",
        "<b onmouseover=alert(4)>x</b>",
    ]);
    let html = s.page(&[]);
    for bad in ["<script>alert", "<img src=x", "<b onmouseover"] {
        assert!(!html.contains(bad), "{bad} unescaped");
    }
    assert_eq!(
        html.matches("<script").count(),
        1,
        "only the page's own script"
    );
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;"));
    // Its section has an id made only of safe characters, and the table links to it.
    let id = "p-.3cscript.3ealert.281.29.3c.2fscript.3e.22.27.26";
    assert!(html.contains(&format!("id=\"{id}\"")) && html.contains(&format!("href=\"#{id}\"")));
}

#[test]
fn output_goes_to_a_file_atomically_or_to_stdout() {
    let s = setup();
    // --json: a summary naming the file and its size.
    let path = s.dir.path().join("page.html");
    let summary = s.json(&["report", "-o", path.to_str().unwrap()]);
    let bytes = std::fs::metadata(&path).unwrap().len();
    assert_eq!(summary["bytes"].as_u64(), Some(bytes));
    assert_eq!(summary["problems"].as_u64(), Some(2));
    assert_eq!(summary["dating"]["tracking"].as_u64(), Some(4));
    assert_eq!(summary["dating"]["modified"].as_u64(), Some(1));
    assert_eq!(summary["dating"]["modified"].as_u64(), Some(1));
    // No temporary file is left beside it.
    let names: Vec<String> = std::fs::read_dir(s.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.ends_with(".tmp")), "{names:?}");
    // `-o -`: the page on stdout.
    let out = mk(s.dir.path())
        .args(s.args(&["report", "-o", "-"]))
        .output()
        .unwrap();
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.trim_end().ends_with("</html>"));
    // A directory that does not exist, or a directory: one line, the path, what to do.
    for (target, expect) in [
        (
            s.dir.path().join("no/such/dir/r.html"),
            "check the directory exists",
        ),
        (s.dir.path().to_path_buf(), "is a directory"),
    ] {
        let out = mk(s.dir.path())
            .args(s.args(&["report", "-o", target.to_str().unwrap()]))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(target.to_str().unwrap()) && err.contains(expect),
            "{err}"
        );
    }
    // No knowledge base: the usual one-line error.
    let out = mk(s.dir.path())
        .args(["--db", "missing.db", "report"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("mk init"));
}

/// The report reads several problems' similar problems in one pass; they must be the ones
/// `mk context` finds one problem at a time, on a knowledge base of every result fixture.
#[test]
fn similar_problems_are_mk_contexts() {
    let dir = TempDir::new().unwrap();
    let db = dir.path().join("knowledge.db");
    extract(
        &db,
        &[
            "results",
            "results_aristotle",
            "results_evidence",
            "attempts",
            "report",
        ],
    );
    let kb = Kb::open(&db).unwrap();
    let report = kb.report(&ReportOptions::default(), None).unwrap();
    assert!(report.sections.len() >= 10);
    let mut shared = 0;
    for section in &report.sections {
        let context = kb
            .context(&section.id, ReportOptions::default().per_section)
            .unwrap();
        assert_eq!(section.similar, context.similar_problems, "{}", section.id);
        shared += section
            .similar
            .iter()
            .filter(|p| p.shared_constants > 0)
            .count();
        assert_eq!(
            section.facts.iter().map(|f| f.id).collect::<Vec<_>>(),
            context.facts.iter().map(|f| f.id).collect::<Vec<_>>()
        );
    }
    assert!(shared > 0, "some problems share constants");
}

// ---- the browser --------------------------------------------------------------------------

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("MF_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    let p = PathBuf::from("/usr/bin/chromium");
    p.is_file().then_some(p)
}

/// Runs headless Chromium on `url` with `args`; stdout and stderr. Killed after a minute.
fn headless(chrome: &Path, profile: &Path, args: &[&str], url: &str) -> (String, String) {
    let mut child = Command::new(chrome)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        // Chromium also writes crash-report settings and dconf's cache below HOME and the XDG
        // folders, whatever its profile: they go into the scratch profile too.
        .env("HOME", profile)
        .env("XDG_CONFIG_HOME", profile.join("config"))
        .env("XDG_CACHE_HOME", profile.join("cache"))
        .args(args)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (mut stdout, mut stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).ok();
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut s).ok();
        s
    });
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("chromium took more than a minute on {url}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (out.join().unwrap(), err.join().unwrap())
}

/// Console messages Chromium logged (`--enable-logging=stderr`): errors, warnings, logs,
/// uncaught exceptions and Content-Security-Policy violations alike.
fn console_lines(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.contains(":CONSOLE")).collect()
}

#[test]
fn the_page_renders_in_headless_chromium() {
    let Some(chrome) = chromium() else {
        eprintln!("SKIPPED: chromium not found (install Debian's `chromium`, or set MF_CHROMIUM); the page was not tested in a browser");
        return;
    };
    let s = setup();
    let html = s.page(&[]);
    let dir = s.dir.path();
    let charts = html.matches("<svg class=\"chart\"").count();
    assert!(charts >= 6, "{charts} charts");

    // The page as the browser built it, with a probe appended that measures every chart.
    let probe = "<script>(function () {\
        var bad = [], svgs = document.querySelectorAll('svg.chart');\
        Array.prototype.forEach.call(svgs, function (s) {\
          var r = s.getBoundingClientRect();\
          var marks = s.querySelectorAll('rect, circle, path, line').length;\
          if (!(r.width > 50 && r.height > 20 && marks > 0)) { bad.push(s.id); }\
        });\
        document.documentElement.setAttribute('data-probe', svgs.length + ' charts; not drawn: [' + bad.join(',') + ']');\
      }());</script>";
    let probed = dir.join("probed.html");
    std::fs::write(&probed, html.replace("</body>", &format!("{probe}</body>"))).unwrap();
    let profile = TempDir::new().unwrap();
    let url = format!("file://{}", probed.display());
    let (dom, log) = headless(&chrome, profile.path(), &["--dump-dom"], &url);
    assert_eq!(console_lines(&log), Vec::<&str>::new(), "console messages");
    assert!(
        dom.contains(&format!("data-probe=\"{charts} charts; not drawn: []\"")),
        "every chart is drawn: {}",
        until(after(&dom, "<html"), ">")
    );
    // The rows are there, the script made the tables sortable and showed the filters.
    let problems = rows(&dom, "problems-table");
    assert_eq!(problems.len(), 2);
    assert!(dom.contains("<th><button type=\"button\">problem</button></th>"));
    assert!(dom.contains("<output>2 shown</output>"));
    assert!(!dom.contains("class=\"filters\" data-for=\"problems-table\" hidden"));

    // Without JavaScript (headless Chromium cannot dump or shoot a page with scripts off):
    // every row is in the HTML itself, and the filters, which need the script, are hidden.
    assert_eq!(rows(&html, "problems-table").len(), 2);
    assert!(html.contains("data-for=\"problems-table\" hidden"));
    let page = dir.join("report.html");
    let url = format!("file://{}", page.display());

    // A screenshot that is not blank: a uniform image compresses to almost nothing, so the
    // page's must be several times larger than an empty page's of the same size.
    let shot = |url: &str, png: &Path| {
        let profile = TempDir::new().unwrap();
        let flag = format!("--screenshot={}", png.display());
        let (_, log) = headless(
            &chrome,
            profile.path(),
            &["--window-size=1280,1600", &flag],
            url,
        );
        assert!(png.is_file(), "no screenshot: {log}");
        std::fs::metadata(png).unwrap().len()
    };
    let empty = dir.join("empty.html");
    std::fs::write(&empty, "<!DOCTYPE html><html><body></body></html>").unwrap();
    let blank = shot(
        &format!("file://{}", empty.display()),
        &dir.join("blank.png"),
    );
    let full = shot(&url, &dir.join("page.png"));
    assert!(
        full > 4 * blank,
        "screenshot looks blank: {full} bytes against {blank} for an empty page"
    );
}

// ---- the problem layer: identity evidence, files without a problem, proofs ----------------

/// `fixtures/report/` and `fixtures/report_identity/` extracted together: the same two
/// problems, a small library package (`Toolkit.lean` and `Toolkit/Basic.lean`: modules, about
/// no problem), `slot961_ramsey_pair_result.lean`, an output of ramsey_pair that does not
/// parse (an unclosed parenthesis) and has no `sorry`, and `lonely_bound.lean`, a problem of
/// one file.
fn setup_identity() -> Setup {
    let dir = TempDir::new().unwrap();
    let db = dir.path().join("knowledge.db");
    extract(&db, &["report", "report_identity"]);
    let tracking = dir.path().join("tracking.db");
    rusqlite::Connection::open(&tracking)
        .unwrap()
        .execute_batch(&std::fs::read_to_string(fixture("report/tracking.sql")).unwrap())
        .unwrap();
    Setup { dir, db, tracking }
}

/// Rows of `mk query SQL`.
fn query_rows(s: &Setup, sql: &str) -> Vec<Value> {
    s.json(&["query", sql]).as_array().unwrap().clone()
}

/// The text of an element's content with tags dropped and entities unescaped.
fn text(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    unescape(&out)
}

/// The cells of a table row (their inner HTML), in order.
fn cells(row: &str) -> Vec<&str> {
    row.split("<td")
        .skip(1)
        .map(|c| until(after(c, ">"), "</td>"))
        .collect()
}

#[test]
fn every_problem_shows_why_its_files_are_about_it() {
    let s = setup_identity();
    let html = s.page(&[]);
    let by_problem: Vec<Value> = query_rows(
        &s,
        "SELECT problem_id AS p, coalesce(problem_evidence, 'unrecorded') AS e, count(*) AS n
         FROM sources WHERE problem_id IS NOT NULL GROUP BY 1, 2",
    );
    assert!(!by_problem.is_empty());
    let rows_on_page = rows(&html, "problems-table");
    assert_eq!(
        rows_on_page.len() as i64,
        query_count(&s, "SELECT count(*) AS n FROM problems")
    );
    for row in rows_on_page {
        let id = pid(row);
        let mine: BTreeMap<String, i64> = by_problem
            .iter()
            .filter(|r| r["p"] == id.as_str())
            .map(|r| {
                (
                    r["e"].as_str().unwrap().to_string(),
                    r["n"].as_i64().unwrap(),
                )
            })
            .collect();
        let files: i64 = mine.values().sum();
        // The table's "why" cell: the files, by evidence family, add up to the problem's files.
        let why = cells(row)[9];
        let total: i64 = text(why)
            .split(" · ")
            .map(|part| part.rsplit(' ').next().unwrap().parse::<i64>().unwrap())
            .sum();
        assert_eq!(total, files, "{id}: {why}");
        // The section lists every evidence kind with its files ("3 files by …").
        let sec = section(&html, &id);
        let listed: BTreeMap<String, i64> = until(after(sec, "<p class=\"evidence\">"), "</p>")
            .split("<span data-evidence=\"")
            .skip(1)
            .map(|span| {
                let words = text(after(span, ">"));
                (
                    until(span, "\"").to_string(),
                    until(&words, " ").parse().unwrap(),
                )
            })
            .collect();
        assert_eq!(listed, mine, "{id}");
        // Each attempt row names the evidence of its file, as stored.
        let attempts = sec
            .split_once("<table class=\"data attempts\">")
            .map_or("", |(_, t)| until(t, "</table>"));
        for r in attempts.split("<tr data-k=").skip(1) {
            let file = text(cells(r)[3]);
            let stored = query_rows(
                &s,
                &format!(
                    "SELECT coalesce(problem_evidence, 'unrecorded') AS e FROM sources
                     WHERE path LIKE '%/{}'",
                    file.rsplit('/').next().unwrap().replace('\'', "''")
                ),
            );
            assert_eq!(stored.len(), 1, "{file}");
            assert_eq!(
                attr(cells_raw(r)[4], "data-evidence").unwrap(),
                stored[0]["e"].as_str().unwrap(),
                "{file}"
            );
        }
    }
}

/// The cells of a row with their opening tags (for their attributes).
fn cells_raw(row: &str) -> Vec<&str> {
    row.split("<td")
        .skip(1)
        .map(|c| until(c, "</td>"))
        .collect()
}

#[test]
fn files_about_no_problem_are_shown_apart_and_counted_once() {
    let s = setup_identity();
    let html = s.page(&[]);
    let stats = s.json(&["stats"]);
    let stored: BTreeMap<String, i64> = query_rows(
        &s,
        "SELECT coalesce(problem_evidence, 'none') AS r, count(*) AS n FROM sources
         WHERE problem_id IS NULL GROUP BY 1",
    )
    .iter()
    .map(|r| {
        (
            r["r"].as_str().unwrap().to_string(),
            r["n"].as_i64().unwrap(),
        )
    })
    .collect();
    // The library package's two modules are about no problem, and say why (`library`).
    assert!(
        stored.get("library").copied().unwrap_or(0) >= 2,
        "{stored:?}"
    );
    let table = rows(&html, "no-problem-table");
    let on_page: BTreeMap<String, i64> = table
        .iter()
        .map(|r| (attr(r, "data-reason").unwrap(), cell(r, "files") as i64))
        .collect();
    assert_eq!(on_page, stored);
    let library = table
        .iter()
        .find(|r| attr(r, "data-reason").as_deref() == Some("library"))
        .unwrap();
    // Counted, not listed: the row gives the query that lists them, and that query does.
    assert!(!library.contains("Toolkit"), "{library}");
    let sql = cmd_sql(library);
    let listed: Vec<String> = query_rows(&s, &sql)
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(listed.len() as f64, cell(library, "files"));
    assert!(listed.iter().any(|p| p.ends_with("Toolkit/Basic.lean")));
    assert!(listed.iter().any(|p| p.ends_with("/Toolkit.lean")));
    // No such file is a problem, nor listed among any problem's attempts or sections.
    let problem_ids: Vec<String> = rows(&html, "problems-table")
        .iter()
        .map(|r| pid(r))
        .collect();
    assert!(problem_ids
        .iter()
        .all(|p| !p.to_lowercase().contains("toolkit")));
    let details = after(&html, "<section id=\"details\"");
    assert!(!details.contains("Toolkit"));
    // Cards: files without a problem, plus every problem's files, are all the files.
    let card = |id: &str| -> i64 {
        until(after(&html, &format!("id=\"{id}\" data-v=\"")), "\"")
            .parse()
            .unwrap()
    };
    let without: i64 = stored.values().sum();
    assert_eq!(card("n-no-problem"), without);
    let with: i64 = rows(&html, "problems-table")
        .iter()
        .map(|r| {
            let c = cells_raw(r)[9];
            attr(c, "data-v").unwrap().parse::<i64>().unwrap()
        })
        .sum();
    assert_eq!(
        with + without,
        stats["freshness"]["files"].as_i64().unwrap()
    );
    // `--json` says the same.
    let out = s.dir.path().join("j.html");
    let summary = s.json(&["report", "-o", out.to_str().unwrap()]);
    assert_eq!(summary["no_problem_files"].as_i64(), Some(without));
    // One problem's page has no such table: those files are about no problem at all.
    let one = s.page(&["--problem", "ramsey_pair"]);
    assert!(!one.contains("id=\"no-problem-table\"") && !one.contains("href=\"#no-problem\""));
}

#[test]
fn status_shows_the_proof_it_rests_on() {
    let s = setup_identity();
    let html = s.page(&[]);
    for row in rows(&html, "problems-table") {
        let id = pid(row);
        let found = s.json(&["find", &id]);
        let p = &found["problem"];
        assert_eq!(pstatus(row).as_deref(), p["status"].as_str());
        // The confidence shown beside our status is the knowledge base's, and proven only ever
        // with a checked proof.
        let shown = pconfidence(row);
        assert_eq!(shown.as_deref(), p["confidence"].as_str(), "{id}");
        if p["status"] == "proven" {
            assert!(
                matches!(shown.as_deref(), Some("verified" | "high")),
                "{id}: {shown:?}"
            );
            let sec = section(&html, &id);
            let proof = unescape(until(
                after(after(sec, "class=\"source proof\">"), "<code>"),
                "</code>",
            ));
            let src = p["proof_source"].as_str().unwrap();
            assert!(
                !proof.is_empty() && src.ends_with(&proof),
                "{proof} vs {src}"
            );
        }
    }
    // ramsey_pair is proven by slot952's complete proof.
    let ramsey = rows(&html, "problems-table")
        .into_iter()
        .find(|r| pid(r) == "ramsey_pair")
        .unwrap();
    assert_eq!(pstatus(ramsey).as_deref(), Some("proven"));
    assert!(section(&html, "ramsey_pair").contains("slot952_ramsey_pair_result.lean"));
}

#[test]
fn a_file_that_does_not_parse_is_never_shown_clean() {
    let s = setup_identity();
    let html = s.page(&[]);
    let stored = query_rows(
        &s,
        "SELECT parse_error_count AS e, sorry_count AS h FROM sources
         WHERE path LIKE '%slot961_ramsey_pair_result.lean'",
    );
    let errors = stored[0]["e"].as_i64().unwrap();
    assert!(errors > 0, "the fixture must not parse");
    let sec = section(&html, "ramsey_pair");
    let attempts = until(after(sec, "<table class=\"data attempts\">"), "</table>");
    let row = until(after(attempts, "slot961_ramsey_pair_result.lean"), "</tr>");
    assert_eq!(cell(row, "parse_errors") as i64, errors);
    let kind = attempts
        .split("<tr data-k=\"")
        .find(|r| r.contains("slot961_ramsey_pair_result.lean"))
        .map(|r| until(r, "\""))
        .unwrap();
    assert_ne!(kind, "proven");
    // The section says how many of the problem's files have syntax errors.
    let broken: i64 = until(after(sec, "data-parse-failures=\""), "\"")
        .parse()
        .unwrap();
    let stored_broken = query_count(
        &s,
        "SELECT count(*) AS n FROM sources WHERE problem_id = 'ramsey_pair' AND parse_error_count > 0",
    );
    assert_eq!(broken, stored_broken);
    assert!(broken >= 1);
}

#[test]
fn the_json_summary_counts_every_dated_attempt() {
    let s = setup_identity();
    let out = s.dir.path().join("r.html");
    let summary = s.json(&["report", "-o", out.to_str().unwrap()]);
    let html = std::fs::read_to_string(&out).unwrap();
    let dating = &summary["dating"];
    let dated: i64 = ["tracking", "stated", "modified", "extracted"]
        .iter()
        .map(|k| dating[k].as_i64().unwrap())
        .sum();
    let stored = query_count(&s, "SELECT count(*) AS n FROM attempts");
    assert!(stored > 0);
    assert_eq!(summary["attempts"].as_i64(), Some(stored));
    assert_eq!(dated, stored);
    let card: i64 = until(after(&html, "id=\"n-attempts\" data-v=\""), "\"")
        .parse()
        .unwrap();
    assert_eq!(card, stored);
    assert_eq!(summary["bytes"].as_u64(), Some(html.len() as u64));
    assert_eq!(
        summary["problems"].as_u64(),
        Some(rows(&html, "problems-table").len() as u64)
    );
    // With --since, what is counted is what the page shows: the attempts in range, each
    // dated once, and no files-without-a-problem count for one problem.
    let since = s.json(&[
        "report",
        "-o",
        out.to_str().unwrap(),
        "--since",
        "2025-01-08",
    ]);
    let html = std::fs::read_to_string(&out).unwrap();
    let card: i64 = until(after(&html, "id=\"n-attempts\" data-v=\""), "\"")
        .parse()
        .unwrap();
    let in_weeks: i64 = rows(&html, "weeks-table")
        .iter()
        .map(|r| cell(r, "total") as i64)
        .sum();
    assert_eq!(card, in_weeks);
    assert_eq!(since["attempts"].as_i64(), Some(card));
    let dated: i64 = ["tracking", "stated", "modified", "extracted"]
        .iter()
        .map(|k| since["dating"][k].as_i64().unwrap())
        .sum();
    assert_eq!(dated, card);
    // slot951 came back on 2025-01-02, before the range.
    assert!(card < stored, "{card} of {stored}");
    let one = s.json(&[
        "report",
        "-o",
        out.to_str().unwrap(),
        "--problem",
        "twin_bound",
    ]);
    assert!(one["no_problem_files"].is_null());
}

#[test]
fn a_problem_of_one_file_names_it_once() {
    let s = setup_identity();
    let html = s.page(&[]);
    let files = |id: &str| -> i64 {
        let row = rows(&html, "problems-table")
            .into_iter()
            .find(|r| pid(r) == id)
            .unwrap();
        attr(cells_raw(row)[9], "data-v").unwrap().parse().unwrap()
    };
    // lonely_bound: one file, named where the statement is; its facts do not repeat it.
    assert_eq!(files("lonely_bound"), 1);
    let sec = section(&html, "lonely_bound");
    let stated = unescape(until(after(after(sec, "Stated in"), "<code>"), "</code>"));
    assert!(stated.ends_with("lonely_bound.lean"), "{stated}");
    let facts = listed(sec, "facts");
    assert!(!facts.is_empty());
    for id in &facts {
        let from = query_rows(
            &s,
            &format!(
                "SELECT s.path AS p FROM finding_sources fs JOIN sources s ON s.id = fs.source_id
                 WHERE fs.finding_id = {id}"
            ),
        );
        assert!(from
            .iter()
            .all(|r| r["p"].as_str().unwrap().ends_with(&stated)));
    }
    assert!(!until(after(sec, "<ul class=\"items facts\">"), "</ul>").contains("<small>— "));
    // ramsey_pair: several files; a fact names its own unless it is the file stating the
    // problem, or the one file the list's heading names.
    assert!(files("ramsey_pair") > 1);
    let sec = section(&html, "ramsey_pair");
    let stated = unescape(until(after(after(sec, "Stated in"), "<code>"), "</code>"));
    let heading = until(after(sec, "<h4>Facts"), "</h4>");
    let items = until(after(sec, "<ul class=\"items facts\">"), "</ul>");
    let ctx = s.json(&["context", "ramsey_pair", "-n", "3"]);
    let mut n = 0;
    for li in items.split("<li data-finding=\"").skip(1) {
        n += 1;
        let id: i64 = until(li, "\"").parse().unwrap();
        let item = ctx["facts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["id"] == id)
            .unwrap();
        let source = item["source"].as_str().unwrap();
        match li.split_once("<small>— ") {
            Some((_, named)) => {
                let named = unescape(until(named, "<"));
                assert!(
                    source.ends_with(&named) && !source.ends_with(&stated),
                    "{li}"
                );
            }
            None => assert!(
                source.ends_with(&stated)
                    || heading.contains("from <code>")
                        && source.ends_with(&unescape(until(after(heading, "from <code>"), "<"))),
                "{li} names no file; {heading}"
            ),
        }
    }
    assert!(n > 0);
}

#[test]
fn a_chart_without_facts_shows_no_made_up_dates() {
    let s = setup_identity();
    // Nothing since 2999: no fact proven in range.
    let html = s.page(&["--since", "2999-01-01"]);
    let fig = until(after(&html, "id=\"fig-facts\""), "</figure>");
    assert!(fig.contains("no verified facts in range"));
    let ticks: Vec<&str> = fig
        .split("class=\"tick\"")
        .skip(1)
        .map(|t| until(after(t, ">"), "<"))
        .filter(|t| t.len() == 10 && t.as_bytes()[4] == b'-')
        .collect();
    assert!(ticks.is_empty(), "{ticks:?}");
    // With facts, the chart is dated by them.
    let html = s.page(&[]);
    let fig = until(after(&html, "id=\"fig-facts\""), "</figure>");
    assert!(fig.contains("class=\"tick\""));
    assert!(!fig.contains(">1970-01-01<") && !fig.contains(">1969-"));
}

// ---- a big campaign: lists cut short, the page's size, the problem layer ------------------

/// `extract` into a fresh knowledge base of `dir`'s files; its `Setup` (no tracking.db).
fn setup_dir(dir: TempDir, files: &Path) -> Setup {
    let db = dir.path().join("knowledge.db");
    let out = Command::new(env!("CARGO_BIN_EXE_mf"))
        .args(["extract", "-q", "--db"])
        .arg(&db)
        .arg("--all")
        .arg(files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tracking = dir.path().join("no-tracking.db");
    Setup { dir, db, tracking }
}

/// `n` problems of one file each, as a benchmark's campaign looks: a theorem named after the
/// problem, proven through three lemmas (one of which states the same as the theorem).
fn campaign(dir: &Path, n: usize) -> PathBuf {
    let files = dir.join("campaign");
    std::fs::create_dir_all(&files).unwrap();
    for k in 1..=n {
        let y = 1900 + k;
        std::fs::write(
            files.join(format!("imo_{y}_p1.lean")),
            format!(
                "import Mathlib\n\n\
                 theorem helper_a_{k} (n : ℕ) (h : 0 < n) : n + {k} > {k} := by omega\n\n\
                 lemma helper_b_{k} (a b : ℕ) : a + b + {k} = b + a + {k} := by ring\n\n\
                 lemma helper_c_{k} (x : ℤ) : x * {k} = {k} * x := by ring\n\n\
                 theorem imo_{y}_p1 (n : ℕ) (h : 0 < n) : n + {k} > {k} := by\n  exact helper_a_{k} n h\n"
            ),
        )
        .unwrap();
    }
    files
}

#[test]
fn a_list_cut_short_names_the_command_that_lists_the_rest() {
    let dir = TempDir::new().unwrap();
    let files = campaign(dir.path(), 3);
    let s = setup_dir(dir, &files);
    let html = s.page(&[]);
    let mut cut = 0;
    for row in rows(&html, "problems-table") {
        let id = pid(row);
        let sec = section(&html, &id);
        let heading = until(after(sec, "<h4>Facts <small>("), ")");
        let total: i64 = until(heading, ",").parse().unwrap();
        // The total is what `mk context` lists from: every fact of the problem's files.
        let all = s.json(&["context", &id, "-n", "1000"]);
        let listed_all: Vec<i64> = all["facts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["id"].as_i64().unwrap())
            .collect();
        assert_eq!(total, listed_all.len() as i64, "{id}: {heading}");
        let shown = listed(sec, "facts");
        // The theorem itself, proven in the file the status rests on, is the proof line's;
        // helper_a states the same and is not repeated either.
        assert_eq!(shown.len(), 2, "{id}");
        let more = after(sec, "<p class=\"more\">");
        let n: i64 = until(more, " more: ").parse().unwrap();
        let command = unescape(until(after(more, "<code>"), "</code>"));
        assert_eq!(command, format!("mk context {id} -n {total}"));
        // What was read of mk context's list: up to the last fact shown.
        let last = shown.last().unwrap();
        let read = listed_all.iter().position(|f| f == last).unwrap() as i64 + 1;
        assert_eq!(n, total - read, "{id}: {n} more of {total}, {read} read");
        // The command lists every fact, those shown among them, and those cut.
        let args: Vec<&str> = command.split(' ').skip(1).collect();
        let rest = s.json(&args);
        assert_eq!(rest["facts"].as_array().unwrap().len() as i64, total);
        assert!(shown.iter().all(|f| listed_all.contains(f)));
        cut += 1;
    }
    assert_eq!(cut, 3);
    // Where a problem's id needs quoting in a shell, the command quotes it.
    let sec = section(&html, "imo_1901_p1");
    assert!(!sec.contains("mk context 'imo"));
}

#[test]
fn the_page_of_a_big_campaign_stays_small() {
    // Each problem adds its row and its section, never lists repeated from its neighbours:
    // the page grows by at most 1.4 KB a problem here (the last build that repeated its
    // facts' confidences, the file a fact comes from, and five "similar" problems of the same
    // domain in every section wrote 2 KB).
    let dir = TempDir::new().unwrap();
    let n = 120;
    let files = campaign(dir.path(), n);
    let s = setup_dir(dir, &files);
    let html = s.page(&[]);
    assert_eq!(rows(&html, "problems-table").len(), n);
    let empty = TempDir::new().unwrap();
    let none = empty.path().join("empty");
    std::fs::create_dir_all(&none).unwrap();
    std::fs::write(none.join("Basic.lean"), "def x : Nat := 1\n").unwrap();
    let base = setup_dir(empty, &none).page(&[]);
    let per_problem = (html.len() - base.len()) / n;
    assert!(
        per_problem <= 1400,
        "{per_problem} bytes a problem ({} in all; {} with none)",
        html.len(),
        base.len()
    );
    // Every section still says its statement, where it is stated and what its status rests on.
    for row in rows(&html, "problems-table") {
        let sec = section(&html, &pid(row));
        assert!(sec.contains("<pre class=\"statement\">"));
        assert!(sec.contains("; our status rests on its proof."), "{sec}");
        assert!(sec.contains("<p class=\"evidence\">Why: "));
    }
}

#[test]
fn a_problem_named_by_its_sketch_only_says_so() {
    let dir = TempDir::new().unwrap();
    let s = setup_dir(dir, &fixture("identity/users"));
    let html = s.page(&[]);
    let weak: BTreeSet<String> = query_rows(
        &s,
        "SELECT problem_id AS p FROM sources WHERE problem_id IS NOT NULL
         GROUP BY 1 HAVING max(problem_evidence = 'topic') = 1 AND min(problem_evidence = 'topic') = 1",
    )
    .iter()
    .map(|r| r["p"].as_str().unwrap().to_string())
    .collect();
    assert!(weak.contains("helper_idea"), "{weak:?}");
    for row in rows(&html, "problems-table") {
        let id = pid(row);
        let flagged = cells(row)[0].contains("sketch name only");
        assert_eq!(flagged, weak.contains(&id), "{id}");
        assert_eq!(
            section(&html, &id).contains("data-weak=\"topic\""),
            flagged,
            "{id}"
        );
        // The strongest-evidence filter matches the why cell's first words.
        if flagged {
            assert!(text(cells(row)[9]).starts_with("topic "));
        }
    }
    // Files about no problem by a reason the page knows, or by one it does not: each shows
    // its stored reason, its files and the command that lists them all.
    let conn = rusqlite::Connection::open(&s.db).unwrap();
    conn.execute_batch(
        "UPDATE sources SET problem_id = NULL, problem_evidence = 'topic'
           WHERE path LIKE '%slot303_helper_idea.lean';
         UPDATE sources SET problem_id = NULL, problem_evidence = 'sketch_only_v2'
           WHERE path LIKE '%slot307_edge_step.lean';",
    )
    .unwrap();
    drop(conn);
    let html = s.page(&[]);
    let table = rows(&html, "no-problem-table");
    let row = |reason: &str| {
        *table
            .iter()
            .find(|r| attr(r, "data-reason").as_deref() == Some(reason))
            .unwrap_or_else(|| panic!("no row {reason}"))
    };
    assert!(text(row("topic")).contains("named by its sketch only"));
    // Counted, not listed.
    assert_eq!(cell(row("topic"), "files"), 1.0);
    assert!(!row("topic").contains("slot303_helper_idea.lean"));
    let unknown = row("sketch_only_v2");
    assert!(
        text(unknown).contains("stored reason sketch_only_v2"),
        "{unknown}"
    );
    let command = unescape(until(after(unknown, "<code class=\"cmd\">"), "</code>"));
    assert!(
        command.starts_with("mk query \"SELECT path FROM sources"),
        "{command}"
    );
    let sql = command
        .strip_prefix("mk query \"")
        .and_then(|c| c.strip_suffix('"'))
        .unwrap();
    let listed = s.json(&["query", sql]);
    assert_eq!(listed.as_array().unwrap().len(), 1);
    assert!(listed[0]["path"]
        .as_str()
        .unwrap()
        .ends_with("slot307_edge_step.lean"));
}

/// The problem layer's fixtures together: the report's problems, a library package, two
/// problems stating the same statement (and one stating another), problems named by their
/// sketch only.
fn setup_layer() -> Setup {
    let dir = TempDir::new().unwrap();
    let db = dir.path().join("knowledge.db");
    extract(
        &db,
        &[
            "report",
            "report_identity",
            "identity/same_statement",
            "identity/sketch_only",
        ],
    );
    let tracking = dir.path().join("no-tracking.db");
    Setup { dir, db, tracking }
}

#[test]
fn each_problem_says_what_mk_find_and_mk_context_say() {
    let s = setup_layer();
    let html = s.page(&[]);
    let ids: Vec<String> = rows(&html, "problems-table")
        .iter()
        .map(|r| pid(r))
        .collect();
    assert!(ids.len() >= 8, "{ids:?}");
    let (mut linked, mut sketch_only) = (0, 0);
    for id in &ids {
        let sec = section(&html, &anchor_of(id)[2..]);
        // Its status in `mk find`'s words: the line after "Status: ".
        let out = mk(s.dir.path())
            .args(s.args(&["find", id]))
            .output()
            .unwrap();
        let find = String::from_utf8_lossy(&out.stdout);
        let want = find
            .lines()
            .find_map(|l| l.trim().strip_prefix("Status: "))
            .unwrap_or_else(|| panic!("no status line for {id}: {find}"));
        let meta = text(until(after(sec, "<p class=\"meta\">"), "</p>"));
        let got = until(after(&meta, " · "), " (literature: as ");
        let got = until(got, " · ");
        assert_eq!(got, want, "{id}");
        // Same statement, as `mk find --json` links them.
        let fj = s.json(&["find", id]);
        let want: Vec<String> = fj["same_statement"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|x| x["id"].as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default();
        let got: Vec<String> = sec
            .split("data-same=\"")
            .skip(1)
            .map(|x| unescape(until(x, "\"")))
            .collect();
        assert_eq!(got, want, "{id}");
        linked += usize::from(!got.is_empty());
        // Named by its sketch only: marked where `mk find --json` says so.
        let weak = fj["problem"]["named_by_sketch_only"]
            .as_bool()
            .unwrap_or(false);
        assert_eq!(sec.contains("data-weak=\"topic\""), weak, "{id}");
        sketch_only += usize::from(weak);
        // Aliases: as many as are stored.
        let stored = query_count(
            &s,
            &format!(
                "SELECT count(*) AS n FROM problem_aliases WHERE problem_id = '{}'",
                id.replace('\'', "''")
            ),
        );
        let shown = sec
            .find(" data-aliases=\"")
            .map_or(0, |_| attr(sec, "data-aliases").unwrap().parse().unwrap());
        assert_eq!(shown, stored, "{id}");
        // Each list's total is what `mk context` lists in all (near-copies dropped).
        let ctx = s.json(&["context", id, "-n", "100000"]);
        for (title, key) in [
            ("Facts", "facts"),
            ("Failed approaches", "failed_approaches"),
            ("False lemmas", "false_lemmas"),
        ] {
            let head = format!("<h4>{title} <small>(");
            let listed = ctx[key].as_array().unwrap();
            match sec.find(&head) {
                Some(i) => {
                    let t = &sec[i + head.len()..];
                    let total: usize = until(until(t, ","), ")").parse().unwrap();
                    assert_eq!(total, listed.len(), "{id} {title}");
                }
                // No list: nothing to list, or only the statement's own proof, which the
                // section's proof line names.
                None => assert!(
                    listed.is_empty() || (listed.len() == 1 && sec.contains("our status rests on")),
                    "{id} {title}: {} listed by mk context, none on the page",
                    listed.len()
                ),
            }
        }
    }
    assert!(linked >= 2, "no same-statement link on the page");
    assert!(sketch_only >= 1, "no problem named by its sketch only");
}

/// `report::anchor`, as the page writes it.
fn anchor_of(id: &str) -> String {
    math_forge::cli::report::anchor(id)
}

#[test]
fn the_top_of_the_page_explains_sums_up_and_lists_what_needs_attention() {
    let s = setup_layer();
    let html = s.page(&[]);
    // The words, before the sections.
    let top = until(&html, "<nav");
    for word in [
        "proven",
        "partial",
        "open",
        "own words",
        "topic",
        "named by its sketch only",
        "Same statement as",
    ] {
        assert!(top.contains(word), "the legend does not say {word:?}");
    }
    // The problems table is there, whole, in a closed details element (no script needed to
    // open it): the top paints without laying it out.
    let list = after(&html, "<details id=\"problems-list\"");
    assert!(
        list.starts_with('>'),
        "the problems table is open: {}",
        &list[..40]
    );
    assert!(until(list, "</details>").contains("id=\"problems-table\""));
    // Needs attention: each reason's problems are those its query lists, in the table's order,
    // and `--json` counts them.
    let order: Vec<String> = rows(&html, "problems-table")
        .iter()
        .map(|r| pid(r))
        .collect();
    let out = s.dir.path().join("j.html");
    let summary = s.json(&["report", "-o", out.to_str().unwrap()]);
    let attention = until(after(&html, "<section id=\"attention\">"), "</section>");
    let items: Vec<&str> = attention.split("<li data-reason=\"").skip(1).collect();
    assert!(
        !items.is_empty(),
        "nothing needs attention in the fixtures? {attention}"
    );
    for item in items {
        let reason = until(item, "\"");
        let li = until(item, "</li>");
        let n: usize = attr(li, "data-v").unwrap().parse().unwrap();
        assert_eq!(
            summary["attention"][reason].as_u64(),
            Some(n as u64),
            "{reason}"
        );
        let listed: Vec<String> = li
            .split("<a href=\"#")
            .skip(1)
            .map(|a| unescape(until(after(a, ">"), "<")))
            .collect();
        assert_eq!(listed.len(), n, "{reason}: the fixtures' lists are short");
        let mut sorted = listed.clone();
        sorted.sort_by_key(|id| order.iter().position(|o| o == id));
        assert_eq!(listed, sorted, "{reason}: not in the table's order");
        if li.contains("<code class=\"cmd\">") {
            let sql = cmd_sql(li);
            let mut want: Vec<String> = query_rows(&s, &sql)
                .iter()
                .map(|r| r["id"].as_str().unwrap().to_string())
                .collect();
            want.dedup();
            let mut got = listed.clone();
            got.sort();
            want.sort();
            want.dedup();
            assert_eq!(got, want, "{reason}");
        }
    }
}

/// The SQL of the first `mk query "SQL"` command shown in `html`.
fn cmd_sql(html: &str) -> String {
    let cmd = unescape(until(after(html, "<code class=\"cmd\">"), "</code>"));
    cmd.strip_prefix("mk query \"")
        .and_then(|c| c.strip_suffix('"'))
        .unwrap_or_else(|| panic!("not a mk query command: {cmd}"))
        .to_string()
}
