-- math-forge knowledge.db, schema version 6: each file's own date.
--
-- A search result shows when the result was produced, not when it was extracted: the date the
-- file's leading comment states (`Generated: 2026-01-04T16:15:34`), else the file's
-- modification time when it was read. `result_date` is UTC, `YYYY-MM-DD HH:MM:SS`;
-- `result_date_from` says which: 'stated' or 'modified'. Files stored before this version have
-- neither until they are extracted again (the extractor's version moves with this step).

ALTER TABLE sources ADD COLUMN result_date TEXT;
ALTER TABLE sources ADD COLUMN result_date_from TEXT
    CHECK(result_date_from IN ('stated', 'modified'));
