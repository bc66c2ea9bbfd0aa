-- Annotation documents as json (the text as written) instead of jsonb. Nothing queries inside a
-- document except the project stats, which json_array_elements serves as well; the documents are
-- written and read whole, and a large one (100k shapes, ~30 MB) costs jsonb's binary conversion on
-- every save and load: on PGlite 9 MB took 4.2 s to insert and 1.7 s to read as jsonb, 0.6 s and
-- 0.04 s as json.
ALTER TABLE annotation_documents ALTER COLUMN annotations DROP DEFAULT;
ALTER TABLE annotation_documents ALTER COLUMN annotations TYPE json USING annotations::json;
ALTER TABLE annotation_documents ALTER COLUMN annotations SET DEFAULT '[]'::json;
