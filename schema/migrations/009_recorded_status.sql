-- math-forge knowledge.db, schema version 9: a problem's status is a function of its evidence.
--
-- Ours (`problems.status`) was raised by each file extracted and never lowered, so a knowledge
-- base an older extractor filled kept statuses its files no longer support, and differed from
-- a fresh extraction of the same files. It is now recomputed after every extraction from the
-- files (a proof or disproof of the main statement, attempts that prove something) and from
-- what did not come from files: `recorded_status`, the status tracking.db (`mk init
-- --from-tracking`) or a person (`mk record`) gave.
--
-- For an existing knowledge base the recorded part is what can be told apart: the whole status
-- of a problem no file was read for; elsewhere `false` (a disproof is never dropped unread),
-- `in_flight` (only tracking.db or a person says it) and the outcomes recorded by hand
-- (`mk record strategy`, not `extracted:` rows). A `partial` or `proven` that tracking.db gave
-- a problem with files cannot be told from the files' own: `mk init --from-tracking` records
-- it again.

ALTER TABLE problems ADD COLUMN recorded_status TEXT
    CHECK(recorded_status IN ('open', 'proven', 'partial', 'false', 'in_flight'));

UPDATE problems SET recorded_status = status
    WHERE NOT EXISTS (SELECT 1 FROM sources s WHERE s.problem_id = problems.id);

UPDATE problems SET recorded_status = CASE
        WHEN status = 'false' THEN 'false'
        WHEN EXISTS (SELECT 1 FROM strategies g WHERE g.problem_id = problems.id
                     AND coalesce(g.learned, '') NOT LIKE 'extracted:%' AND g.outcome = 'proven')
            THEN 'proven'
        WHEN EXISTS (SELECT 1 FROM strategies g WHERE g.problem_id = problems.id
                     AND coalesce(g.learned, '') NOT LIKE 'extracted:%' AND g.outcome = 'partial')
            THEN 'partial'
        WHEN status = 'in_flight' OR EXISTS (SELECT 1 FROM strategies g
                     WHERE g.problem_id = problems.id
                     AND coalesce(g.learned, '') NOT LIKE 'extracted:%' AND g.outcome = 'in_flight')
            THEN 'in_flight'
    END
    WHERE recorded_status IS NULL;
