-- math-forge knowledge.db, schema version 5: what each file says of a fact, and which
-- extractor read each file.
--
-- A fact (one `findings` row per theorem name and statement) occurs in many files, and the
-- files differ in what they say of it: one proves it outright, another only by a lemma that
-- ends in `sorry` (conditional), a third with another proof (another technique). Each
-- occurrence now keeps its own title, description, notes, technique and proof length, and the
-- fact row shows those of the occurrence that vouches for it best (`findings.source_id`), so
-- a fact never says "conditional on X" next to a file that proves X.
--
-- `sources.extractor` is the version of the extractor that read the file (0: before this
-- column). `mf extract` re-reads a file whose findings an older extractor made, even when its
-- bytes are unchanged: what the knowledge base claims follows the rules of the current one.

ALTER TABLE finding_sources ADD COLUMN title TEXT;
ALTER TABLE finding_sources ADD COLUMN description TEXT;
ALTER TABLE finding_sources ADD COLUMN notes TEXT;
ALTER TABLE finding_sources ADD COLUMN proof_technique TEXT;
ALTER TABLE finding_sources ADD COLUMN proof_lines INTEGER;

ALTER TABLE sources ADD COLUMN extractor INTEGER NOT NULL DEFAULT 0;
