-- Deleting a project cascades to its images, and their delete trigger then writes image_folder_stats
-- rows of that project: with a foreign key to projects those writes fail once the project is gone, and
-- the project cannot be deleted. The trigger already removes rows that reach zero, so a deleted
-- project's stats disappear with its images; the stats need no foreign key.
ALTER TABLE image_folder_stats DROP CONSTRAINT IF EXISTS image_folder_stats_project_id_fkey;
