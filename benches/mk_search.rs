//! Whole-process latency of `mk search` on a 100,000-finding knowledge base. The bar: p50 at
//! most 3 ms over every query.
//!
//! ```text
//! cargo bench --bench mk_search
//! ```
//!
//! The knowledge base is generated once through the public batch writer and cached at
//! `target/bench-data/mk_search_100k_v3.db` (delete it to rebuild). Each run spawns the real
//! binary, which opens the database, runs the search and prints text to a pipe, so the numbers
//! include process start-up, like a user's or a hook's call. Each query runs `MF_BENCH_RUNS`
//! (default 50) times; the table gives p50/p90/max of the wall time and the p50 of the
//! process's CPU time, per query and over all (`ALL` p50 is the figure the bar is about).
//! The `(mk --version)` and `(mf --version)` rows are the bare process start-up on the same
//! machine at the same moment: on a shared machine they show how much of the time is load
//! rather than search. `MK_BIN=/path/to/mk` measures another binary instead.
//!
//! With `MF_BENCH_OLD_MK=/path/to/old/mk` (its `mf` beside it), a second table compares the
//! builds like for like, whatever their schemas: each build's `mf extract` makes its own
//! knowledge base of the same generated Lean files (about 100,000 facts), each build searches
//! its own, every run of this build followed by one of the old, and the table gives both and
//! the ratio of their p50s.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use math_forge::kb::{
    content_hash, Confidence, FileItem, FindingType, Kb, NewFinding, ProblemStatus, ProblemUpsert,
    SourceRecord,
};

#[path = "common/mod.rs"]
mod common;

const FINDINGS: usize = 100_000;
const PER_FILE: usize = 10;

/// Queries of every kind users type, from exact names to hostile text. The exact theorem name
/// and problem id are picked from the generated corpus (see [`queries`]).
const QUERIES: &[(&str, &str)] = &[
    ("partial_identifier", "card_le_ca"),
    ("namespaced_lemma", "Finset.card_le_card_of_injOn"),
    ("two_words", "prime divisor"),
    ("prefix_word", "induct"),
    ("phrase", "\"quadratic residue\""),
    ("or_not", "pigeonhole OR parity NOT cover"),
    ("hostile", "'; DROP TABLE findings; -- (∀ n ∈ ℕ) NEAR( *"),
    ("common_word", "lemma"),
];

/// Deterministic xorshift so every run builds the same corpus.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// Zipf-like: small indexes much more often, as word frequencies are.
    fn zipf(&mut self, n: usize) -> usize {
        let u = (self.next() % 1_000_000) as f64 / 1_000_000.0;
        ((n as f64).powf(u) as usize).saturating_sub(1).min(n - 1)
    }
}

const MATH: &[&str] = &[
    "prime",
    "divisor",
    "residue",
    "quadratic",
    "modular",
    "induction",
    "parity",
    "pigeonhole",
    "bound",
    "sieve",
    "lacunary",
    "coprime",
    "factor",
    "sum",
    "product",
    "graph",
    "cover",
    "packing",
    "triangle",
    "clique",
    "matching",
    "sequence",
    "limit",
    "integral",
    "polynomial",
    "root",
    "field",
    "ring",
    "group",
    "order",
    "cyclic",
    "norm",
    "valuation",
    "density",
    "powerful",
    "consecutive",
    "square",
    "cube",
    "gcd",
    "lcm",
    "totient",
    "mobius",
    "euler",
    "fermat",
    "legendre",
    "jacobi",
    "criterion",
    "lemma",
    "theorem",
    "card",
    "finset",
    "injective",
    "surjective",
    "monotone",
    "convex",
    "continuous",
    "measure",
    "bijection",
];
const TECHNIQUES: &[&str] = &[
    "induction",
    "linear arithmetic (omega)",
    "finite computation (native_decide)",
    "numerical normalization",
    "ring tactic",
    "interval case analysis",
    "field simplification",
    "calculational proof",
    "QR + Euler criterion",
    "pigeonhole",
    "double counting",
];
const PROBLEM_KINDS: &[&str] = &["erdos", "tuza", "ft", "putnam", "kurepa", "oeis"];

fn word(rng: &mut Rng) -> String {
    // Half the vocabulary is math words, the rest synthetic so the index has a realistic size.
    if rng.below(2) == 0 {
        MATH[rng.zipf(MATH.len())].to_string()
    } else {
        let syll = [
            "ka", "lo", "mi", "ne", "su", "ta", "ri", "do", "be", "zu", "fo", "gi",
        ];
        let n = 2 + rng.below(3);
        let mut w: String = (0..n).map(|_| syll[rng.zipf(syll.len())]).collect();
        w.push_str(&rng.below(50).to_string());
        w
    }
}

fn sentence(rng: &mut Rng, words: usize) -> String {
    (0..words).map(|_| word(rng)).collect::<Vec<_>>().join(" ")
}

fn corpus() -> Vec<FileItem> {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let files = FINDINGS / PER_FILE;
    // Some lemmas are proven again and again ("dozens of times" in the users' corpus): 40 shared
    // lemmas, one in every fifth file, so each appears about 50 times.
    let shared: Vec<(String, String)> = (0..40)
        .map(|i| {
            let name = if i == 0 { "Finset.card_le_card_of_injOn".to_string() } else { format!("Finset.shared_lemma_{i}_{}", word(&mut rng)) };
            let stmt = format!("theorem {name} {{s : Finset α}} {{t : Finset β}} (f : α → β) (hf : ∀ a ∈ s, f a ∈ t) : s.card ≤ t.card + {i}");
            (name, stmt)
        })
        .collect();
    (0..files)
        .map(|slot| {
            let kind = PROBLEM_KINDS[rng.zipf(PROBLEM_KINDS.len())];
            let problem = format!("{kind}_{}", rng.below(2_000));
            let domain = ["nt", "algebra", "combinatorics", "analysis"][rng.zipf(4)];
            let technique = TECHNIQUES[rng.zipf(TECHNIQUES.len())];
            let path = format!("results/slot{slot}_{problem}_result.lean");
            let mut findings = Vec::with_capacity(PER_FILE);
            for k in 0..PER_FILE {
                let f = match k {
                    0 if slot % 5 == 0 => NewFinding {
                        finding_type: FindingType::Theorem,
                        title: format!("{} (theorem)", shared[(slot / 5) % 40].0),
                        description: format!(
                            "Proven theorem from slot{slot}: {}",
                            shared[(slot / 5) % 40].1
                        ),
                        theorem_name: Some(shared[(slot / 5) % 40].0.clone()),
                        // One name in many files, each with its own statement: distinct facts
                        // (the same name and statement would be one fact with occurrences).
                        theorem_statement: Some(format!(
                            "{} + 0 * {slot}",
                            shared[(slot / 5) % 40].1
                        )),
                        proof_technique: Some("injection counting".into()),
                        confidence: Confidence::Verified,
                        ..Default::default()
                    },
                    8 => NewFinding {
                        finding_type: FindingType::Failure,
                        title: format!("Failed attempt: slot{slot} ({} sorry)", 3 + rng.below(5)),
                        description: sentence(&mut rng, 25),
                        why_failed: Some(sentence(&mut rng, 12)),
                        avoid_pattern: Some(sentence(&mut rng, 5)),
                        proof_technique: Some(TECHNIQUES[rng.zipf(TECHNIQUES.len())].into()),
                        confidence: Confidence::High,
                        ..Default::default()
                    },
                    9 => NewFinding {
                        finding_type: FindingType::Technique,
                        title: format!("Technique: {technique} (slot{slot})"),
                        description: sentence(&mut rng, 30),
                        proof_technique: Some(technique.into()),
                        confidence: Confidence::Verified,
                        ..Default::default()
                    },
                    _ => {
                        let name = format!("{problem}_{}_{}_{k}", word(&mut rng), word(&mut rng));
                        let stmt = format!("lemma {name} (n : ℕ) : {}", sentence(&mut rng, 18));
                        NewFinding {
                            finding_type: FindingType::Theorem,
                            title: format!("{name} (lemma)"),
                            description: format!(
                                "Proven lemma from slot{slot}: {}",
                                &stmt[..stmt.len().min(200)]
                            ),
                            theorem_name: Some(name),
                            theorem_statement: Some(stmt),
                            proof_technique: Some(technique.into()),
                            confidence: if rng.below(4) == 0 {
                                Confidence::Medium
                            } else {
                                Confidence::Verified
                            },
                            tags: Some(domain.into()),
                            ..Default::default()
                        }
                    }
                };
                findings.push(NewFinding {
                    domain_id: Some(domain.into()),
                    ..f
                });
            }
            FileItem {
                source: SourceRecord {
                    content_hash: content_hash(path.as_bytes()),
                    path,
                    size_bytes: 10_000,
                    slot: Some(slot as i64),
                    problem_id: Some(problem.clone()),
                    ..Default::default()
                },
                findings,
                problem: Some(ProblemUpsert {
                    id: problem,
                    domain_id: Some(domain.into()),
                    status: Some(ProblemStatus::Partial),
                    ..Default::default()
                }),
                attempt: None,
                aliases: Vec::new(),
                stated: Vec::new(),
            }
        })
        .collect()
}

fn knowledge_db() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    let path = target.join("bench-data").join("mk_search_100k_v3.db");
    if let Ok(kb) = Kb::open_existing(&path) {
        if kb.finding_count().unwrap() == FINDINGS as i64 {
            return path;
        }
    }
    let _ = std::fs::remove_file(&path);
    let start = Instant::now();
    let mut kb = Kb::open(&path).unwrap();
    let outcomes = kb.write_batch(corpus()).unwrap();
    assert_eq!(kb.finding_count().unwrap(), FINDINGS as i64);
    kb.connection().execute_batch("PRAGMA optimize; INSERT INTO findings_fts(findings_fts) VALUES ('optimize'); INSERT INTO findings_ident(findings_ident) VALUES ('optimize');").unwrap();
    eprintln!(
        "built {} ({} files, {FINDINGS} findings) in {:.1} s",
        path.display(),
        outcomes.len(),
        start.elapsed().as_secs_f64()
    );
    path
}

fn mk_bin() -> PathBuf {
    std::env::var_os("MK_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_mk")))
}

/// Wall and CPU milliseconds of one run of `bin ARGS`.
fn run_once(bin: &Path, args: &[&std::ffi::OsStr]) -> (f64, f64) {
    let cpu = common::children_cpu();
    let start = Instant::now();
    let status = Command::new(bin)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    let elapsed = start.elapsed();
    assert!(status.success(), "{} {args:?} failed", bin.display());
    (
        common::ms(elapsed),
        common::ms(common::children_cpu() - cpu),
    )
}

/// [`QUERIES`] plus an existing theorem name and problem id.
fn queries(db: &Path) -> Vec<(String, String)> {
    let kb = Kb::open_existing(db).unwrap();
    let one = |sql: &str| -> String { kb.connection().query_row(sql, [], |r| r.get(0)).unwrap() };
    let name = one("SELECT theorem_name FROM findings WHERE theorem_name LIKE 'erdos%' ORDER BY id LIMIT 1 OFFSET 500");
    let problem = one("SELECT problem_id FROM findings WHERE problem_id LIKE 'erdos%' ORDER BY id LIMIT 1 OFFSET 500");
    let mut q = vec![
        ("exact_theorem_name".to_string(), name),
        ("problem_id".to_string(), problem),
    ];
    q.extend(QUERIES.iter().map(|(n, s)| (n.to_string(), s.to_string())));
    q
}

/// Lean files that `mf extract` turns into about [`FINDINGS`] facts of the same vocabulary as
/// [`corpus`]: [`PER_FILE`] complete theorems a file, their statements' binders words of
/// [`sentence`], their proofs one technique each. What a compared build extracts (its own
/// knowledge base, whatever its schema). Returns the folder.
fn lean_corpus(dir: &Path) -> PathBuf {
    let root = dir.join("results");
    std::fs::create_dir_all(&root).unwrap();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    const PROOFS: &[&str] = &[
        "by\n  induction n with\n  | zero => simp\n  | succ k ih => omega",
        "by\n  omega",
        "by\n  native_decide",
        "by\n  norm_num",
        "by\n  ring_nf\n  omega",
        "by\n  interval_cases n <;> simp",
        "by\n  field_simp\n  omega",
        "by\n  calc n ≤ n := le_refl n\n    _ ≤ n + 1 := by omega",
        "by\n  simp",
    ];
    // Binder names: words of `sentence` that are no keyword.
    let binders = |rng: &mut Rng, n: usize| -> String {
        (0..n)
            .map(|_| word(rng))
            .filter(|w| !matches!(w.as_str(), "lemma" | "theorem"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    for slot in 0..FINDINGS / PER_FILE {
        let kind = PROBLEM_KINDS[rng.zipf(PROBLEM_KINDS.len())];
        let problem = format!("{kind}_{}", rng.below(2_000));
        let mut text = String::from("import Mathlib\n\n");
        for k in 0..PER_FILE {
            let (keyword, name) = if k == 0 && slot % 5 == 0 {
                // A name many files prove, each with its own statement.
                let i = (slot / 5) % 40;
                let name = if i == 0 {
                    "Finset.card_le_card_of_injOn".to_string()
                } else {
                    format!("Finset.shared_lemma_{i}")
                };
                ("theorem", name)
            } else {
                let name = format!("{problem}_{}_{}_{k}", word(&mut rng), word(&mut rng));
                (if k % 2 == 0 { "theorem" } else { "lemma" }, name)
            };
            let words = binders(&mut rng, 12);
            let proof = PROOFS[rng.zipf(PROOFS.len())];
            text.push_str(&format!(
                "{keyword} {name} (n : ℕ) ({words} : ℕ) : n ≤ n + {slot} * {k} := {proof}\n\n"
            ));
        }
        std::fs::write(root.join(format!("slot{slot}_{problem}_result.lean")), text).unwrap();
    }
    root
}

/// One case of a table: its name, and the command of each build compared (this build's first).
struct Case {
    name: String,
    runs: Vec<(PathBuf, Vec<std::ffi::OsString>)>,
}

/// A search of `query` in `db` by `mk`.
fn search_args(db: &Path, query: &str) -> Vec<std::ffi::OsString> {
    vec![
        "search".into(),
        "--db".into(),
        db.into(),
        "--".into(),
        query.into(),
    ]
}

/// Times every case `runs` times, its builds' runs alternating, and prints a row for each
/// build, the ratio of their p50s, and the same over all searches (`ALL`).
fn table(cases: &[Case], runs: usize) {
    eprintln!(
        "{:<22} {:>8} {:>8} {:>8} {:>8}",
        "query", "p50 ms", "p90 ms", "max ms", "CPU p50"
    );
    // Wall p50, and CPU p50 (what the machine's load changes least).
    let row = |label: &str, t: &[(f64, f64)]| -> (f64, f64) {
        let wall = common::sorted(t.iter().map(|t| t.0).collect());
        let cpu = common::sorted(t.iter().map(|t| t.1).collect());
        let p50 = common::quantile(&wall, 0.5);
        let cpu_p50 = common::quantile(&cpu, 0.5);
        eprintln!(
            "{label:<22} {p50:>8.2} {:>8.2} {:>8.2} {cpu_p50:>8.2}",
            common::quantile(&wall, 0.9),
            wall[wall.len() - 1],
        );
        (p50, cpu_p50)
    };
    let ratio = |label: &str, this: (f64, f64), old: (f64, f64)| {
        eprintln!(
            "{label:<22} {:>7.2}× {:>25.2}×",
            this.0 / old.0,
            this.1 / old.1
        );
    };
    let builds = cases.iter().map(|c| c.runs.len()).max().unwrap_or(1);
    let mut all: Vec<Vec<(f64, f64)>> = vec![Vec::new(); builds];
    let label = |b: usize, name: &str| {
        if b == 0 {
            name.to_string()
        } else {
            "  old build".to_string()
        }
    };
    for case in cases {
        let is_search = !case.name.starts_with('(');
        let mut t: Vec<Vec<(f64, f64)>> = vec![Vec::new(); case.runs.len()];
        for _ in 0..runs {
            for ((bin, args), t) in case.runs.iter().zip(&mut t) {
                let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
                t.push(run_once(bin, &args));
            }
        }
        let p50: Vec<(f64, f64)> = t
            .iter()
            .enumerate()
            .map(|(b, t)| row(&label(b, &case.name), t))
            .collect();
        if let [this, old] = p50[..] {
            ratio("  this / old (p50)", this, old);
        }
        if is_search {
            for (all, t) in all.iter_mut().zip(t) {
                all.extend(t);
            }
        }
    }
    let p50: Vec<(f64, f64)> = all
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.is_empty())
        .map(|(b, t)| row(if b == 0 { "ALL" } else { "ALL old build" }, t))
        .collect();
    if let [this, old] = p50[..] {
        ratio("this / old (p50)", this, old);
    }
}

fn main() {
    if std::env::args()
        .skip(1)
        .any(|a| !a.starts_with('-') && !"mk_search".contains(a.as_str()))
    {
        return;
    }
    let db = knowledge_db();
    let bin = mk_bin();
    let mf = PathBuf::from(env!("CARGO_BIN_EXE_mf"));
    let runs = common::runs(50);
    let mut cases = vec![
        Case {
            name: "(mk --version)".into(),
            runs: vec![(bin.clone(), vec!["--version".into()])],
        },
        Case {
            name: "(mf --version)".into(),
            runs: vec![(mf.clone(), vec!["--version".into()])],
        },
    ];
    for (name, query) in queries(&db) {
        cases.push(Case {
            name,
            runs: vec![(bin.clone(), search_args(&db, &query))],
        });
    }
    eprintln!(
        "mk search, whole process, {FINDINGS} findings, {runs} runs per query ({}); {}",
        bin.display(),
        common::load()
    );
    table(&cases, runs);
    eprintln!("(bar: ALL p50 at most 3 ms; {})", common::load());
    in_process(&db, runs);
    if let Some(old) = common::old_binary("MF_BENCH_OLD_MK") {
        compare(&bin, &mf, &old, runs);
    }
}

/// This build against an old one, like for like whatever their schemas: each searches a
/// knowledge base its own `mf extract` made of the same generated Lean files
/// ([`lean_corpus`]), the two builds' runs alternating. An old build whose extraction fails is
/// timed on `--version` only, and the table says so.
fn compare(mk: &Path, mf: &Path, old_mk: &Path, runs: usize) {
    let dir = tempfile::tempdir().unwrap();
    let corpus = lean_corpus(dir.path());
    let this_db = dir.path().join("this.db");
    let old_db = dir.path().join("old.db");
    let old_mf = common::sibling(old_mk, "mf");
    let this = common::extract_kb(mf, std::slice::from_ref(&corpus), &this_db)
        .unwrap_or_else(|e| panic!("{e}"));
    let old = common::extract_kb(&old_mf, std::slice::from_ref(&corpus), &old_db);
    let facts = |db: &Path| -> i64 {
        rusqlite::Connection::open(db)
            .and_then(|c| c.query_row("SELECT count(*) FROM findings", [], |r| r.get(0)))
            .unwrap_or(-1)
    };
    eprintln!(
        "\nthis build against {}, each on the knowledge base its own `mf extract` made of {} \
         generated files (this build: {} findings in {:.1} s; old build: {}); {runs} runs per \
         query, alternating; {}",
        old_mk.display(),
        FINDINGS / PER_FILE,
        facts(&this_db),
        this.as_secs_f64(),
        match &old {
            Ok(t) => format!("{} findings in {:.1} s", facts(&old_db), t.as_secs_f64()),
            Err(e) => format!("{e}; timed on --version only"),
        },
        common::load()
    );
    let mut cases = vec![Case {
        name: "(mk --version)".into(),
        runs: vec![
            (mk.to_path_buf(), vec!["--version".into()]),
            (old_mk.to_path_buf(), vec!["--version".into()]),
        ],
    }];
    if old.is_ok() {
        for (name, query) in queries(&this_db) {
            cases.push(Case {
                name,
                runs: vec![
                    (mk.to_path_buf(), search_args(&this_db, &query)),
                    (old_mk.to_path_buf(), search_args(&old_db, &query)),
                ],
            });
        }
    }
    table(&cases, runs);
    eprintln!("({})", common::load());
}

/// Where a search's time goes beside process start-up: opening the knowledge base (read-only,
/// schema read) and `Kb::search` itself, in this process, CPU time of this thread (medians).
fn in_process(db: &Path, runs: usize) {
    use math_forge::kb::SearchOptions;
    let med = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let open: Vec<f64> = (0..runs)
        .map(|_| {
            let t = common::thread_cpu();
            let kb = Kb::open_read_only(db).unwrap();
            kb.is_empty().unwrap();
            common::ms(common::thread_cpu() - t)
        })
        .collect();
    eprintln!(
        "in process: open read-only + first statement {:.2} ms CPU; Kb::search CPU ms (median of {runs}, a fresh connection each):",
        med(open)
    );
    for (name, query) in queries(db) {
        let t: Vec<f64> = (0..runs)
            .map(|_| {
                let kb = Kb::open_read_only(db).unwrap();
                kb.is_empty().unwrap();
                let t = common::thread_cpu();
                kb.search(&query, &SearchOptions::default()).unwrap();
                common::ms(common::thread_cpu() - t)
            })
            .collect();
        eprintln!("  {name:<22} {:>8.2}", med(t));
    }
}
