-- Classes for every tool (issue 33 §3): a class used to be tied to one shape type; it now lists the
-- tools that may draw it (`tools`; absent: every tool). Each existing class keeps its type as its
-- allowed tools, so nothing it could not be drawn with before becomes possible: a polygon class
-- also keeps masks (Auto-Annotate, brush and eraser drew masks under polygon classes). `type` stays
-- on the class while the tools are exactly its own, for older readers (contract/projects.ts
-- normalizeClass writes the same form). Classes that already list tools, or have no type, are left
-- as they are, so running this over a partly converted list changes nothing twice.
UPDATE projects
SET classes = (
  SELECT coalesce(jsonb_agg(
    CASE
      WHEN jsonb_typeof(c) <> 'object' OR c ? 'tools' OR NOT (c ? 'type') THEN c
      WHEN c->>'type' = 'polygon' THEN c || '{"tools": ["polygon", "mask"]}'::jsonb
      WHEN c->>'type' IN ('box', 'polyline', 'keypoint') THEN c || jsonb_build_object('tools', jsonb_build_array(c->'type'))
      ELSE c
    END ORDER BY ord), '[]'::jsonb)
  FROM jsonb_array_elements(projects.classes) WITH ORDINALITY AS e(c, ord)
)
WHERE jsonb_typeof(classes) = 'array'
  AND EXISTS (SELECT 1 FROM jsonb_array_elements(projects.classes) AS x(c) WHERE jsonb_typeof(c) = 'object' AND c ? 'type' AND NOT c ? 'tools');
