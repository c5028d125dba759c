-- math-forge knowledge.db, schema version 8: problem identity (issue 29).
--
-- A file's problem now comes from evidence (tracking.db, the file's own words, its name or
-- folder in a known scheme, the users' sketch naming), and `sources.problem_evidence` says
-- which one decided, so that every row can be audited. Problem ids have one canonical
-- spelling (`erdos_975`, `imo_2025_p4`); the other spellings met in names, paths and comments
-- (`ErdosProblems/975`, `imo2025_p4_algebra`) are aliases, and so is an id whose files all
-- moved to one new id when a newer extractor re-read them ('moved'): what was recorded by
-- hand under the old id moves with them, and the old id keeps finding it.
--
-- `alias_key` is the problem key of the alias (lowercase, without ' ', '_', '-'; the same
-- function as kb::sql::problem_key), so lookups ignore case and separators.

CREATE TABLE IF NOT EXISTS problem_aliases (
    alias_key TEXT PRIMARY KEY,
    alias TEXT NOT NULL,
    problem_id TEXT NOT NULL,
    origin TEXT NOT NULL CHECK(origin IN ('spelling', 'moved', 'recorded'))
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_problem_aliases_problem ON problem_aliases(problem_id);

ALTER TABLE sources ADD COLUMN problem_evidence TEXT;
