-- math-forge knowledge.db: one row per fact, and what proofs use.
--
-- A theorem extracted from a file is a fact identified by `fact_key` (its name and its
-- whitespace-collapsed statement, kb::fact_key). The same fact in many files (copies, versions,
-- unpacked projects) is one `findings` row; every file it occurs in is a row of
-- `finding_sources` (file, and through `sources` its slot and uuid), with the confidence that
-- file supports. The fact's own `confidence` is the best of its occurrences, and its
-- `source_id` names one of them. A fact lives as long as one occurrence does.
--
-- `finding_uses` holds the constants a proof refers to (`Finset.card_le_card`), with the last
-- component in `short`, so `mk search card_le_card` finds the proofs that use the lemma.
--
-- Existing duplicate theorem rows are merged by the Rust step of this migration
-- (kb::facts::merge_duplicates), which also fills `fact_key` and the occurrences.

ALTER TABLE findings ADD COLUMN fact_key TEXT;
CREATE UNIQUE INDEX IF NOT EXISTS idx_findings_fact ON findings(fact_key) WHERE fact_key IS NOT NULL;

CREATE TABLE IF NOT EXISTS finding_sources (
    finding_id INTEGER NOT NULL REFERENCES findings(id) ON DELETE CASCADE,
    source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    confidence TEXT,
    PRIMARY KEY (finding_id, source_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_finding_sources_source ON finding_sources(source_id);

CREATE TABLE IF NOT EXISTS finding_uses (
    finding_id INTEGER NOT NULL REFERENCES findings(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    short TEXT NOT NULL,
    PRIMARY KEY (finding_id, name)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_finding_uses_short ON finding_uses(short COLLATE NOCASE);

-- Updates that change no indexed column (a fact's confidence or its representative source)
-- must not touch the full-text indexes: the row may not be indexed yet inside a bulk write.
DROP TRIGGER IF EXISTS findings_fts_update;
CREATE TRIGGER findings_fts_update AFTER UPDATE OF title, description, theorem_name, theorem_statement, proof_technique, tags, why_failed ON findings BEGIN
    INSERT INTO findings_fts(findings_fts, rowid, title, description, theorem_name, theorem_statement, proof_technique, tags, why_failed)
    VALUES ('delete', old.id, old.title, old.description, old.theorem_name, old.theorem_statement, old.proof_technique, old.tags, old.why_failed);
    INSERT INTO findings_fts(rowid, title, description, theorem_name, theorem_statement, proof_technique, tags, why_failed)
    VALUES (new.id, new.title, new.description, new.theorem_name, new.theorem_statement, new.proof_technique, new.tags, new.why_failed);
END;

DROP TRIGGER IF EXISTS findings_ident_update;
CREATE TRIGGER findings_ident_update AFTER UPDATE OF theorem_name, problem_id, proof_technique ON findings BEGIN
    INSERT INTO findings_ident(findings_ident, rowid, theorem_name, problem_id, proof_technique)
    VALUES ('delete', old.id, old.theorem_name, old.problem_id, old.proof_technique);
    INSERT INTO findings_ident(rowid, theorem_name, problem_id, proof_technique)
    VALUES (new.id, new.theorem_name, new.problem_id, new.proof_technique);
END;

-- One row per attempt (a file Aristotle returned) on a problem: the approach it took (the
-- technique of its main proof) and how it came out. `strategies` rows marked
-- `learned = 'extracted: …'` are recomputed from here (kb::attempts); recorded rows are
-- never touched. `mk recommend` counts successes and failures from here.
CREATE TABLE IF NOT EXISTS attempts (
    source_id INTEGER PRIMARY KEY REFERENCES sources(id) ON DELETE CASCADE,
    problem_id TEXT NOT NULL,
    domain_id TEXT,
    approach TEXT NOT NULL,
    outcome TEXT NOT NULL CHECK(outcome IN ('proven', 'partial', 'failed'))
);
CREATE INDEX IF NOT EXISTS idx_attempts_problem ON attempts(problem_id, approach);
CREATE INDEX IF NOT EXISTS idx_attempts_domain ON attempts(domain_id);
