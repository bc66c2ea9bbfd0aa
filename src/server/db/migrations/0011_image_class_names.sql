-- The classes on each image (issue 32 §4): images.class_names holds the distinct class names of the
-- image's annotations, sorted, so the images list filters by class (`class_names && ARRAY[...]`) on
-- the row it already reads, with no join to the annotation rows. Statement triggers on annotations
-- keep it, so every write path (saves, batch saves, restores, imports, live rebases, the start-up
-- move of old documents) keeps it right without knowing about it. One grouped UPDATE per statement:
-- an import of 10,000 shapes costs one aggregate, not 10,000 updates.
ALTER TABLE images ADD COLUMN class_names text[] NOT NULL DEFAULT '{}';

CREATE FUNCTION image_class_names_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    -- Names new to their image join its list (images that already list them are not touched).
    UPDATE images i SET class_names = ARRAY(SELECT DISTINCT x FROM unnest(i.class_names || n.names) x ORDER BY 1)
    FROM (SELECT image_id, array_agg(DISTINCT name) AS names FROM new_rows GROUP BY image_id) n
    WHERE i.id = n.image_id AND NOT i.class_names @> n.names;
  END IF;
  IF TG_OP = 'DELETE' THEN
    -- A name leaves the list when no annotation of the image has it any more.
    UPDATE images i SET class_names = ARRAY(SELECT x FROM unnest(i.class_names) x WHERE x <> ALL (g.gone) ORDER BY 1)
    FROM (
      SELECT o.image_id, array_agg(o.name) AS gone FROM (SELECT DISTINCT image_id, name FROM old_rows) o
      WHERE NOT EXISTS (SELECT 1 FROM annotations a WHERE a.image_id = o.image_id AND a.name = o.name)
      GROUP BY o.image_id
    ) g
    WHERE i.id = g.image_id;
  ELSIF TG_OP = 'UPDATE' THEN
    -- The same for names a rename left behind (names the statement also wrote are still there).
    UPDATE images i SET class_names = ARRAY(SELECT x FROM unnest(i.class_names) x WHERE x <> ALL (g.gone) ORDER BY 1)
    FROM (
      SELECT o.image_id, array_agg(o.name) AS gone
      FROM (SELECT DISTINCT image_id, name FROM old_rows EXCEPT SELECT image_id, name FROM new_rows) o
      WHERE NOT EXISTS (SELECT 1 FROM annotations a WHERE a.image_id = o.image_id AND a.name = o.name)
      GROUP BY o.image_id
    ) g
    WHERE i.id = g.image_id;
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER annotations_class_names_insert AFTER INSERT ON annotations REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION image_class_names_apply();
CREATE TRIGGER annotations_class_names_update AFTER UPDATE ON annotations REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION image_class_names_apply();
CREATE TRIGGER annotations_class_names_delete AFTER DELETE ON annotations REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION image_class_names_apply();

UPDATE images i SET class_names = c.names
FROM (SELECT image_id, array_agg(DISTINCT name ORDER BY name) AS names FROM annotations GROUP BY image_id) c
WHERE i.id = c.image_id;

-- A rare class among 100k images: the list finds its few images by this index instead of reading
-- the project in page order.
CREATE INDEX images_class_names_idx ON images USING gin (class_names);
