-- math-forge knowledge.db, schema version 11: one problem across its spellings by its
-- statement.
--
-- Each statement a file gives of its problem carries its fingerprint
-- (extract::fingerprint): the statement without its theorem's name, comments and layout,
-- its bound variables renamed in order, read together with the file's own definitions,
-- notations and `variable`s it may depend on. Two problems whose main statements have the
-- same fingerprint state the same mathematics: `mk find` shows each as "same statement as"
-- the other. Ids are not merged (each keeps its files, attempts and status, and a tracking.db
-- id is never renamed); the link is read from these rows when asked.
--
-- NULL for a row an extractor before version 11 stored (it is filled when the file is read
-- again, which the new extractor version makes the next `mf extract` do).

-- The step itself runs in kb::schema::add_fingerprint, which adds the column only where it is
-- missing (SQLite has no ADD COLUMN IF NOT EXISTS):
--   ALTER TABLE problem_statements ADD COLUMN fingerprint TEXT;
--   CREATE INDEX IF NOT EXISTS idx_problem_statements_fingerprint
--       ON problem_statements(fingerprint) WHERE fingerprint IS NOT NULL;
SELECT 1;
