-- math-forge knowledge.db, schema version 10: the names each file defines.
--
-- A file whose name names no problem (a sketch's step, `slot510_bridge_lemma.lean`) gets its
-- problem from the definitions it shares with files whose problem is known. A run of one file
-- needs the stored files' definitions too: they are kept here, so that it decides from the
-- database what a run of all the files decides, without reading the stored files again.
--
-- `definitions` holds the names (`def`, `structure`, `inductive`, … as
-- problem::signature::defined_names reads them), one per line; NULL for a row an extractor
-- before version 8 stored (it is filled when the file is read again).

ALTER TABLE sources ADD COLUMN definitions TEXT;
