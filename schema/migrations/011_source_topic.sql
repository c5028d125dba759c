-- math-forge knowledge.db, schema version 11: a file's topic, and why a file has no problem.
--
-- A file whose problem nothing but its users' sketch name names (`slot483_spoke_extraction
-- .lean`: a step of a campaign its words never name) is about no problem: a file name alone
-- is no evidence of one. Its sketch name is kept here as the file's topic, a label to search
-- by (`mk query "SELECT path FROM sources WHERE topic = 'spoke_extraction'"`), never a problem
-- with a status. `problem_evidence` of a file without a problem says why it has none
-- (`topic`, `step`, `title`, `collection`, `library`, `test`; NULL: nothing names one).
--
-- The extractor version moves with this schema, so the next `mf extract` reads every file
-- again and fills both.

ALTER TABLE sources ADD COLUMN topic TEXT;
CREATE INDEX idx_sources_topic ON sources(topic) WHERE topic IS NOT NULL;
