// An image as the API answers it.
import type { Exec } from '../../db/client';
import type { Image } from '../../../contract/images';
import { folderIdOf } from './folder-path';
import type { ImageRow } from './rows';

export function imageJson(row: ImageRow, folderId: string | null): Image {
  return {
    id: row.id,
    project_id: row.projectId,
    organization_id: row.organizationId,
    filename: row.filename,
    gcs_uri: row.gcsUri,
    gcs_path: row.gcsPath,
    status: row.status,
    virtual_folder_path: row.virtualFolderPath,
    folder_id: folderId,
    file_size: row.fileSize,
    mime_type: row.mimeType,
    image_width: row.imageWidth,
    image_height: row.imageHeight,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    annotation_count: row.annotationCount,
    is_archived: row.isArchived,
    is_edited: row.isEdited,
    thumbnail_path: row.thumbnailPath,
    assignee_id: row.assigneeId,
    reviewer_id: row.reviewerId,
    open_issues: row.openIssues,
    pending_predictions: row.pendingPredictions,
    overlap: row.overlap,
  };
}

export async function imageJsonWithFolder(db: Exec, row: ImageRow): Promise<Image> {
  return imageJson(row, await folderIdOf(db, row.projectId, row.virtualFolderPath));
}
