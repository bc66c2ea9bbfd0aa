// The calls the editor screen makes (spec section 7: Images, Annotations). Saving goes through the
// save manager (./save); this file only reads.
import { LoadDataResponse } from '../../../contract/annotation-api';
import { ImageResponse, ListImagesResponse, SignedUrlResponse, MAX_PAGE_SIZE, type Image, type ImageStatus, type ListSortField } from '../../../contract/images';
import type { StoredAnnotation } from '../../../contract/annotations';
import { request } from '../../api/client';
import { ImageTiles } from '../../../contract/tiles';
import {
  GetMaskResponse,
  ProcessImageResponse,
  SegmentationHealthResponse,
  SegmentationWarmupResponse,
} from '../../../contract/segmentation';

const enc = encodeURIComponent;

export interface LoadedAnnotations {
  annotations: StoredAnnotation[];
  version: number;
  /** When the server saved this version (the save manager's merge compares edit times). */
  saved_at?: string | null;
}

export const editorApi = {
  getImage: async (imageId: string, orgId: string): Promise<Image> =>
    (await request('GET', `/images/${enc(imageId)}?org_id=${enc(orgId)}`, ImageResponse)).image,

  /** The project's images called `filename` (any folder, archived included), for a reload without navigation state. */
  findByFilename: async (projectId: string, orgId: string, filename: string): Promise<Image[]> => {
    const q = new URLSearchParams({ org_id: orgId, search: filename, limit: '100', page: '1', is_archived: 'all' });
    const res = await request('GET', `/projects/${enc(projectId)}/images?${q}`, ListImagesResponse);
    return res.images.filter((i) => i.filename === filename);
  },

  /** One folder's images in the Data tab's order: the editor's previous / next sequence. */
  listFolder: async (projectId: string, orgId: string, folderPath: string, sort: { field: ListSortField; order: 'asc' | 'desc' }, status: ImageStatus | null): Promise<Image[]> => {
    const q = new URLSearchParams({ org_id: orgId, folder_path: folderPath, page: '1', limit: String(MAX_PAGE_SIZE), sort_by: sort.field, sort_order: sort.order, is_archived: 'false' });
    if (status) q.set('status', status);
    return (await request('GET', `/projects/${enc(projectId)}/images?${q}`, ListImagesResponse)).images;
  },

  loadData: async (imageId: string, projectId: string): Promise<LoadedAnnotations> => {
    const res = await request('GET', `/annotations/load-data/${enc(imageId)}?project_id=${enc(projectId)}`, LoadDataResponse);
    return { ...res, annotations: res.annotations as StoredAnnotation[] };
  },

  /** The tile pyramid of a large image (none for one small enough to draw whole). */
  tiles: (imageId: string, orgId: string) => request('GET', `/images/${enc(imageId)}/tiles?org_id=${enc(orgId)}`, ImageTiles),

  originalUrl: async (imageId: string, orgId: string): Promise<string> =>
    (await request('GET', `/images/${enc(imageId)}/signed-url?org_id=${enc(orgId)}&variant=original&expiration_minutes=60`, SignedUrlResponse)).signed_url,

  // Assisted segmentation (spec section 7).
  segWarmup: (orgId: string) => request('POST', `/auto-annotate/sam2/warmup?org_id=${enc(orgId)}`, SegmentationWarmupResponse),
  segHealth: (orgId: string) => request('GET', `/auto-annotate/sam2/health?org_id=${enc(orgId)}`, SegmentationHealthResponse),
  segProcess: (projectId: string, imageName: string) =>
    request('POST', '/auto-annotate/sam2/process-image', ProcessImageResponse, { project_id: projectId, image_name: imageName }),
  segMask: (projectId: string, imageName: string, positive: [number, number][], negative: [number, number][], usePrevious: boolean, signal: AbortSignal) =>
    request(
      'POST',
      '/auto-annotate/sam2/get-mask',
      GetMaskResponse,
      { project_id: projectId, image_name: imageName, positive_points: positive, negative_points: negative, use_previous_mask: usePrevious },
      { signal },
    ),
};
