-- math-forge knowledge.db, schema version 1.
--
-- knowledge.db is derived and reconstructible: it can always be rebuilt from tracking.db and the
-- result files. tracking.db stays the source of truth and is never written.
--
-- This file is embedded in the binary (include_str!) and applied by `Kb::open` inside one
-- IMMEDIATE transaction when `PRAGMA user_version` is 0. Connection settings (WAL, busy timeout,
-- foreign keys) are applied from Rust because PRAGMA journal_mode cannot run inside a
-- transaction. Every statement is idempotent (IF NOT EXISTS / OR IGNORE) so that a database
-- created by the earlier bash + sqlite3 tooling (same tables, user_version 0) can be adopted.
-- Later changes go to schema/migrations/NNN_name.sql and bump user_version by one each.

-- ============================================================
-- DOMAINS: mathematical classification taxonomy
-- ============================================================
CREATE TABLE IF NOT EXISTS domains (
    id TEXT PRIMARY KEY,           -- 'nt', 'algebra', 'combinatorics', 'analysis'
    name TEXT NOT NULL,
    description TEXT
);

INSERT OR IGNORE INTO domains (id, name, description) VALUES
('nt',             'Number Theory',   'Primes, divisibility, modular arithmetic, Diophantine'),
('algebra',        'Algebra',         'Groups, rings, fields, representation theory'),
('combinatorics',  'Combinatorics',   'Graphs, hypergraphs, extremal, Ramsey'),
('analysis',       'Analysis',        'Real/complex analysis, measure theory, functional');

-- ============================================================
-- SOURCES: one row per result file version a finding was extracted from
-- ============================================================
-- `path` is unique: re-extracting a file whose content_hash changed replaces its findings.
CREATE TABLE IF NOT EXISTS sources (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    content_hash TEXT NOT NULL,        -- blake3 hex of the file bytes (kb::content_hash)
    size_bytes INTEGER NOT NULL CHECK(size_bytes >= 0),
    slot INTEGER,                      -- from the file name (slot614_...)
    problem_id TEXT,
    aristotle_uuid TEXT,               -- request uuid from the Aristotle header = submissions.uuid
    lean_version TEXT,
    mathlib_version TEXT,
    parse_error_count INTEGER NOT NULL DEFAULT 0 CHECK(parse_error_count >= 0),
    sorry_count INTEGER NOT NULL DEFAULT 0 CHECK(sorry_count >= 0),
    axiom_count INTEGER NOT NULL DEFAULT 0 CHECK(axiom_count >= 0),
    extracted_at TEXT NOT NULL DEFAULT (datetime('now'))
);

-- ============================================================
-- FINDINGS: core knowledge atoms
-- ============================================================
CREATE TABLE IF NOT EXISTS findings (
    id INTEGER PRIMARY KEY AUTOINCREMENT,

    finding_type TEXT NOT NULL CHECK(finding_type IN (
        'theorem',           -- A proven mathematical result
        'technique',         -- A proof technique that worked
        'failure',           -- An approach that failed and why
        'false_lemma',       -- A disproven claim with counterexample
        'computation',       -- A computational result (witness, pattern, bound)
        'mathlib_api',       -- A useful Mathlib API discovery
        'insight'            -- A strategic/structural observation
    )),
    domain_id TEXT REFERENCES domains(id),

    title TEXT NOT NULL,
    description TEXT NOT NULL,
    problem_id TEXT,

    -- Provenance
    source_slot INTEGER,
    source_submission_uuid TEXT,
    source_file TEXT,

    -- Proof details
    theorem_name TEXT,
    theorem_statement TEXT,
    proof_technique TEXT,
    mathlib_imports TEXT,             -- Comma-separated key Mathlib imports
    proof_lines INTEGER,

    -- Failure details
    counterexample TEXT,
    why_failed TEXT,
    avoid_pattern TEXT,

    confidence TEXT CHECK(confidence IN (
        'verified', 'high', 'medium', 'low', 'disproven'
    )) DEFAULT 'medium',

    created_at TEXT DEFAULT (datetime('now')),
    updated_at TEXT DEFAULT (datetime('now')),
    tags TEXT,                       -- Comma-separated free-form tags
    notes TEXT,

    -- Exact file version this finding came from (NULL for migrated or recorded findings).
    source_id INTEGER REFERENCES sources(id) ON DELETE CASCADE,
    -- Stable identity of a migrated row ('tracking:<table>:<id>') so re-running the
    -- migration updates instead of duplicating.
    origin TEXT
);

-- ============================================================
-- STRATEGIES: problem-level approach tracking
-- ============================================================
CREATE TABLE IF NOT EXISTS strategies (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    problem_id TEXT NOT NULL,
    problem_name TEXT NOT NULL,
    domain_id TEXT REFERENCES domains(id),
    approach_name TEXT NOT NULL,
    approach_description TEXT,
    outcome TEXT NOT NULL CHECK(outcome IN (
        'proven', 'partial', 'failed', 'in_flight', 'untried'
    )),
    submission_slot INTEGER,
    submission_uuid TEXT,
    finding_ids TEXT,                 -- Comma-separated finding IDs from this attempt
    attempts INTEGER DEFAULT 1,
    last_attempted TEXT DEFAULT (datetime('now')),
    learned TEXT,
    created_at TEXT DEFAULT (datetime('now')),
    UNIQUE(problem_id, approach_name)
);

-- ============================================================
-- PROBLEMS: problem-level summary
-- ============================================================
CREATE TABLE IF NOT EXISTS problems (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    domain_id TEXT REFERENCES domains(id),
    status TEXT CHECK(status IN (
        'open', 'proven', 'partial', 'false', 'in_flight'
    )) DEFAULT 'open',
    submission_count INTEGER DEFAULT 0,
    proven_count INTEGER DEFAULT 0,
    failed_count INTEGER DEFAULT 0,
    statement TEXT,
    best_result TEXT,
    created_at TEXT DEFAULT (datetime('now')),
    updated_at TEXT DEFAULT (datetime('now'))
);

-- ============================================================
-- CACHE: Aristotle queue status (singleton row)
-- ============================================================
CREATE TABLE IF NOT EXISTS queue_cache (
    id INTEGER PRIMARY KEY CHECK(id = 1),
    cached_at TEXT NOT NULL,
    in_flight INTEGER DEFAULT 0,
    slots_open INTEGER DEFAULT 5,
    ready_to_fetch TEXT,              -- JSON array of slot numbers
    recently_completed TEXT,          -- JSON array of {slot, status, sorry_count}
    top_near_miss TEXT,               -- JSON: {slot, problem, sorry_count, sorry_location}
    raw_json TEXT
);

-- ============================================================
-- FTS5 #1: words. Porter stemming over the prose columns, BM25-ranked.
-- ============================================================
-- prefix='3' keeps `word*` queries (partial words) cheap on large corpora.
CREATE VIRTUAL TABLE IF NOT EXISTS findings_fts USING fts5(
    title,
    description,
    problem_id UNINDEXED,
    theorem_name,
    theorem_statement,
    proof_technique,
    tags,
    why_failed,
    content=findings,
    content_rowid=id,
    tokenize='porter unicode61',
    prefix='3'
);

-- Persistent ranking so `ORDER BY rank` uses the spec's column weights:
-- title=10, description=5, problem_id=0 (unindexed), theorem_name=1, theorem_statement=5,
-- proof_technique=3, tags=2, why_failed=3.
INSERT INTO findings_fts(findings_fts, rank)
VALUES ('rank', 'bm25(10.0, 5.0, 0.0, 1.0, 5.0, 3.0, 2.0, 3.0)');

-- ============================================================
-- FTS5 #2: identifiers. Trigram over names, so `erdos_850_triple_factors`,
-- `Finset.card_le_card`, `card_le` and `rdos_85` all match as substrings, case-insensitively.
-- ============================================================
CREATE VIRTUAL TABLE IF NOT EXISTS findings_ident USING fts5(
    theorem_name,
    problem_id,
    proof_technique,
    content=findings,
    content_rowid=id,
    tokenize='trigram'
);

-- ============================================================
-- SYNC TRIGGERS: keep both external-content indexes equal to `findings`.
-- The delete entries must carry the OLD values, so they run before the new ones are added.
-- ============================================================
CREATE TRIGGER IF NOT EXISTS findings_fts_insert AFTER INSERT ON findings BEGIN
    INSERT INTO findings_fts(rowid, title, description, theorem_name, theorem_statement, proof_technique, tags, why_failed)
    VALUES (new.id, new.title, new.description, new.theorem_name, new.theorem_statement, new.proof_technique, new.tags, new.why_failed);
END;

CREATE TRIGGER IF NOT EXISTS findings_fts_delete AFTER DELETE ON findings BEGIN
    INSERT INTO findings_fts(findings_fts, rowid, title, description, theorem_name, theorem_statement, proof_technique, tags, why_failed)
    VALUES ('delete', old.id, old.title, old.description, old.theorem_name, old.theorem_statement, old.proof_technique, old.tags, old.why_failed);
END;

CREATE TRIGGER IF NOT EXISTS findings_fts_update AFTER UPDATE ON findings BEGIN
    INSERT INTO findings_fts(findings_fts, rowid, title, description, theorem_name, theorem_statement, proof_technique, tags, why_failed)
    VALUES ('delete', old.id, old.title, old.description, old.theorem_name, old.theorem_statement, old.proof_technique, old.tags, old.why_failed);
    INSERT INTO findings_fts(rowid, title, description, theorem_name, theorem_statement, proof_technique, tags, why_failed)
    VALUES (new.id, new.title, new.description, new.theorem_name, new.theorem_statement, new.proof_technique, new.tags, new.why_failed);
END;

CREATE TRIGGER IF NOT EXISTS findings_ident_insert AFTER INSERT ON findings BEGIN
    INSERT INTO findings_ident(rowid, theorem_name, problem_id, proof_technique)
    VALUES (new.id, new.theorem_name, new.problem_id, new.proof_technique);
END;

CREATE TRIGGER IF NOT EXISTS findings_ident_delete AFTER DELETE ON findings BEGIN
    INSERT INTO findings_ident(findings_ident, rowid, theorem_name, problem_id, proof_technique)
    VALUES ('delete', old.id, old.theorem_name, old.problem_id, old.proof_technique);
END;

CREATE TRIGGER IF NOT EXISTS findings_ident_update AFTER UPDATE ON findings BEGIN
    INSERT INTO findings_ident(findings_ident, rowid, theorem_name, problem_id, proof_technique)
    VALUES ('delete', old.id, old.theorem_name, old.problem_id, old.proof_technique);
    INSERT INTO findings_ident(rowid, theorem_name, problem_id, proof_technique)
    VALUES (new.id, new.theorem_name, new.problem_id, new.proof_technique);
END;

-- ============================================================
-- INDEXES
-- ============================================================
CREATE INDEX IF NOT EXISTS idx_findings_type ON findings(finding_type);
CREATE INDEX IF NOT EXISTS idx_findings_domain ON findings(domain_id);
CREATE INDEX IF NOT EXISTS idx_findings_problem ON findings(problem_id);
CREATE INDEX IF NOT EXISTS idx_findings_slot ON findings(source_slot);
CREATE INDEX IF NOT EXISTS idx_findings_confidence ON findings(confidence);
CREATE INDEX IF NOT EXISTS idx_findings_created ON findings(created_at);

-- Exact identifier lookups (search tier 0, "also in slots" grouping).
CREATE INDEX IF NOT EXISTS idx_findings_theorem_name ON findings(theorem_name COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS idx_findings_technique ON findings(proof_technique COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS idx_findings_title ON findings(title);
-- Problem ids compared the way users type them: 'Erdos-850' = 'erdos 850' = 'erdos_850'.
-- The expression must stay identical to kb::sql::problem_key_sql() for the planner to use it.
CREATE INDEX IF NOT EXISTS idx_findings_problem_key
    ON findings(lower(replace(replace(replace(problem_id, ' ', ''), '_', ''), '-', '')));
CREATE INDEX IF NOT EXISTS idx_findings_source ON findings(source_id);
CREATE UNIQUE INDEX IF NOT EXISTS idx_findings_origin ON findings(origin) WHERE origin IS NOT NULL;

CREATE INDEX IF NOT EXISTS idx_sources_problem ON sources(problem_id);
CREATE INDEX IF NOT EXISTS idx_sources_slot ON sources(slot);

CREATE INDEX IF NOT EXISTS idx_strategies_problem ON strategies(problem_id);
CREATE INDEX IF NOT EXISTS idx_strategies_outcome ON strategies(outcome);
CREATE INDEX IF NOT EXISTS idx_strategies_domain ON strategies(domain_id);
CREATE INDEX IF NOT EXISTS idx_strategies_problem_key
    ON strategies(lower(replace(replace(replace(problem_id, ' ', ''), '_', ''), '-', '')));

CREATE INDEX IF NOT EXISTS idx_problems_domain ON problems(domain_id);
CREATE INDEX IF NOT EXISTS idx_problems_status ON problems(status);
CREATE INDEX IF NOT EXISTS idx_problems_key
    ON problems(lower(replace(replace(replace(id, ' ', ''), '_', ''), '-', '')));

-- ============================================================
-- VIEWS
-- ============================================================
CREATE VIEW IF NOT EXISTS v_proven_techniques AS
SELECT
    proof_technique,
    domain_id,
    COUNT(*) AS usage_count,
    GROUP_CONCAT(source_slot, ', ') AS slots
FROM findings
WHERE finding_type = 'theorem' AND confidence = 'verified' AND proof_technique IS NOT NULL
GROUP BY proof_technique, domain_id
ORDER BY usage_count DESC;

CREATE VIEW IF NOT EXISTS v_failed_approaches AS
SELECT
    problem_id,
    title,
    why_failed,
    avoid_pattern,
    source_slot,
    created_at
FROM findings
WHERE finding_type IN ('failure', 'false_lemma')
ORDER BY created_at DESC;

CREATE VIEW IF NOT EXISTS v_problem_dashboard AS
SELECT
    p.id,
    p.name,
    p.domain_id,
    p.status,
    p.submission_count,
    p.proven_count,
    p.failed_count,
    (SELECT COUNT(*) FROM findings f WHERE f.problem_id = p.id AND f.finding_type = 'theorem') AS theorem_count,
    (SELECT COUNT(*) FROM findings f WHERE f.problem_id = p.id AND f.finding_type = 'failure') AS failure_count,
    (SELECT COUNT(*) FROM findings f WHERE f.problem_id = p.id AND f.finding_type = 'false_lemma') AS false_lemma_count,
    (SELECT COUNT(*) FROM strategies s WHERE s.problem_id = p.id AND s.outcome = 'in_flight') AS in_flight_count,
    (SELECT COUNT(*) FROM strategies s WHERE s.problem_id = p.id AND s.outcome = 'untried') AS untried_count
FROM problems p;

CREATE VIEW IF NOT EXISTS v_near_miss_findings AS
SELECT
    f.id, f.title, f.problem_id, f.source_slot, f.notes
FROM findings f
WHERE f.finding_type = 'theorem'
  AND f.confidence = 'medium'
  AND f.notes LIKE '%sorry=1%'
ORDER BY f.created_at DESC;
