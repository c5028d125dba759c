-- math-forge knowledge.db, schema version 12: the journal's events of one file's content
-- found by index.
--
-- `mf verify` marks the journaled attempts on the content it rejected, and a refused edit asks
-- which declarations of the file's current content Lean rejected (kb::journal:
-- mark_rejected, rejected_declarations): both look events up by file and content hash. The
-- journal only grows, so without an index each refused edit read every event ever journaled.
CREATE INDEX IF NOT EXISTS idx_session_events_content ON session_events(file, content_hash);
