-- math-forge knowledge.db, schema version 2: bulk writers may index new findings themselves.
--
-- With AFTER INSERT triggers on `findings`, every INSERT runs under a statement journal, and
-- FTS5 writes its pending index data to disk as a new segment whenever a statement journal (or
-- savepoint) opens: one tiny segment per finding and index, which automerge then merges over
-- and over. `mf extract` spent most of its writer time there.
--
-- A writer that inserts many findings now puts a row in `findings_fts_deferred` inside its own
-- write transaction. While the row is there (it is never committed: the writer deletes it before
-- COMMIT, and a crash rolls it back with everything else) the insert triggers do nothing, and the
-- writer adds its new rows to both indexes with one INSERT … SELECT before it commits
-- (kb::write). No other connection can see the row, so every other writer (mk record, the
-- tracking migration, sqlite3 by hand) is indexed by the triggers as before. The delete and
-- update triggers are unchanged.

CREATE TABLE IF NOT EXISTS findings_fts_deferred (
    id INTEGER PRIMARY KEY CHECK (id = 1)
);

DROP TRIGGER IF EXISTS findings_fts_insert;
CREATE TRIGGER findings_fts_insert AFTER INSERT ON findings
WHEN NOT EXISTS (SELECT 1 FROM findings_fts_deferred) BEGIN
    INSERT INTO findings_fts(rowid, title, description, theorem_name, theorem_statement, proof_technique, tags, why_failed)
    VALUES (new.id, new.title, new.description, new.theorem_name, new.theorem_statement, new.proof_technique, new.tags, new.why_failed);
END;

DROP TRIGGER IF EXISTS findings_ident_insert;
CREATE TRIGGER findings_ident_insert AFTER INSERT ON findings
WHEN NOT EXISTS (SELECT 1 FROM findings_fts_deferred) BEGIN
    INSERT INTO findings_ident(rowid, theorem_name, problem_id, proof_technique)
    VALUES (new.id, new.theorem_name, new.problem_id, new.proof_technique);
END;
