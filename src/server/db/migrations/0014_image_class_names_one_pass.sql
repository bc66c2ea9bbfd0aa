-- images.class_names' trigger (0011, 0013) in one pass. 0013 guarded each UPDATE of images with an
-- EXISTS that ran the same query as the UPDATE (for a removal, the NOT EXISTS probe of the
-- annotation rows for every (image, name) the statement removed ran twice), and a rename (an UPDATE
-- of annotation rows) could UPDATE images twice: once for the names it added, once for those it
-- left behind. Now each statement works out once which (image, name) pairs join or leave a list,
-- into arrays, and updates images once, only when there is one. The lists come out as before
-- (sorted, distinct); an UPDATE of images still runs only when a list really changes, since the
-- folder-stats trigger (0002) fires for every UPDATE of images, even one that changes no row.
CREATE OR REPLACE FUNCTION image_class_names_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  -- One entry per (image, name) that changes: the image, the name, and whether it joins the list.
  pair_images uuid[];
  pair_names text[];
  pair_joins boolean[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    -- Names new to their image join its list.
    SELECT array_agg(n.image_id), array_agg(n.name), array_agg(true) INTO pair_images, pair_names, pair_joins
    FROM (SELECT DISTINCT image_id, name FROM new_rows) n JOIN images i ON i.id = n.image_id
    WHERE NOT (n.name = ANY (i.class_names));
  ELSIF TG_OP = 'DELETE' THEN
    -- A name leaves the list when no annotation of the image has it any more.
    SELECT array_agg(o.image_id), array_agg(o.name), array_agg(false) INTO pair_images, pair_names, pair_joins
    FROM (SELECT DISTINCT image_id, name FROM old_rows) o
    WHERE NOT EXISTS (SELECT 1 FROM annotations a WHERE a.image_id = o.image_id AND a.name = o.name);
  ELSE
    -- Both: names the statement wrote join; names a rename left behind (and the statement did not
    -- also write) leave when no annotation of the image has them any more.
    SELECT array_agg(c.image_id), array_agg(c.name), array_agg(c.joining) INTO pair_images, pair_names, pair_joins
    FROM (
      SELECT n.image_id, n.name, true AS joining
      FROM (SELECT DISTINCT image_id, name FROM new_rows) n JOIN images i ON i.id = n.image_id
      WHERE NOT (n.name = ANY (i.class_names))
      UNION ALL
      SELECT o.image_id, o.name, false
      FROM (SELECT image_id, name FROM old_rows EXCEPT SELECT image_id, name FROM new_rows) o
      WHERE NOT EXISTS (SELECT 1 FROM annotations a WHERE a.image_id = o.image_id AND a.name = o.name)
    ) c;
  END IF;
  IF pair_images IS NOT NULL THEN
    UPDATE images i SET class_names = ARRAY(SELECT DISTINCT x FROM unnest(i.class_names || ch.added) x WHERE x <> ALL (ch.gone) ORDER BY 1)
    FROM (
      SELECT p.image_id,
             coalesce(array_agg(p.name) FILTER (WHERE p.joining), '{}') AS added,
             coalesce(array_agg(p.name) FILTER (WHERE NOT p.joining), '{}') AS gone
      FROM unnest(pair_images, pair_names, pair_joins) AS p(image_id, name, joining)
      GROUP BY p.image_id
    ) ch
    WHERE i.id = ch.image_id;
  END IF;
  RETURN NULL;
END;
$$;
