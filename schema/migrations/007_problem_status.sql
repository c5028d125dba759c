-- math-forge knowledge.db, schema version 7: what the knowledge base says about a problem
-- comes from evidence (issue 29, part B).
--
-- - Domains: geometry, probability and topology join the taxonomy. A file records its own
--   domain and what it rests on (`sources.domain_id`, `sources.domain_evidence`: the file's
--   subject classification, its imports, or the names it uses); a file that says nothing has
--   none and takes its problem's. A problem's domain is the one its files' strongest evidence
--   gives (`problems.domain_evidence`), else one tracking.db or a user gave, else unknown
--   (NULL): never a default.
-- - Statements: each file lists what it states of its problem (`problem_statements`): the
--   main statement and the variants (`erdos_1.variants.weak`), with how strongly the file
--   names it (rank) and what a catalogue says of it in the literature
--   (`@[category research open]`). The problem's statement is the main one, with its file and
--   theorem (`problems.statement_source`, `statement_theorem`).
-- - Status: ours (`problems.status`) is `proven` only by a complete, unconditional proof of
--   the main statement, shown with that proof's confidence and file (`problems.confidence`,
--   `proof_source`); the literature's (`problems.literature_status`, `literature_source`)
--   is stored apart from it.

INSERT OR IGNORE INTO domains (id, name, description) VALUES
('geometry',    'Geometry',    'Euclidean, convex and discrete geometry'),
('probability', 'Probability', 'Probability theory, random structures, statistics'),
('topology',    'Topology',    'General and algebraic topology');

ALTER TABLE sources ADD COLUMN domain_id TEXT;
ALTER TABLE sources ADD COLUMN domain_evidence TEXT;

ALTER TABLE problems ADD COLUMN domain_evidence TEXT;
ALTER TABLE problems ADD COLUMN statement_source TEXT;
ALTER TABLE problems ADD COLUMN statement_theorem TEXT;
ALTER TABLE problems ADD COLUMN literature_status TEXT;
ALTER TABLE problems ADD COLUMN literature_source TEXT;
ALTER TABLE problems ADD COLUMN confidence TEXT;
ALTER TABLE problems ADD COLUMN proof_source TEXT;

-- Statements and domains that came from tracking.db or a user keep their word; the rest
-- were an older extractor's (whose number-theory default the next extraction replaces).
UPDATE problems SET domain_evidence = 'recorded'
    WHERE domain_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sources s WHERE s.problem_id = problems.id);

CREATE TABLE IF NOT EXISTS problem_statements (
    source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    problem_id TEXT NOT NULL,
    theorem_name TEXT NOT NULL,
    statement TEXT NOT NULL,
    variant INTEGER NOT NULL DEFAULT 0 CHECK(variant IN (0, 1)),
    rank INTEGER NOT NULL DEFAULT 0,
    literature TEXT,
    PRIMARY KEY (source_id, theorem_name)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_problem_statements_problem ON problem_statements(problem_id);

-- A statement of a problem no file was read for came from tracking.db.
UPDATE problems SET statement_source = 'tracking.db'
    WHERE statement IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sources s WHERE s.problem_id = problems.id);
