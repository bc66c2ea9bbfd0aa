// Ground truth (issue 36 §2): whether an image is ground truth, marking it, and the project's
// ground-truth settings (gt_rate, gt_pass_threshold). docs/analytics.md "Ground truth and scores".
import { ProjectResponse } from '../../contract/projects';
import { GroundTruthResponse } from '../../contract/quality';
import { request } from './client';

const enc = encodeURIComponent;

export const qualityApi = {
  groundTruth: (imageId: string) => request('GET', `/images/${enc(imageId)}/ground-truth`, GroundTruthResponse),
  setGroundTruth: (imageId: string, enabled: boolean) => request('POST', `/images/${enc(imageId)}/ground-truth`, GroundTruthResponse, { enabled }),
  setProjectGroundTruth: (projectId: string, patch: { gt_rate?: number; gt_pass_threshold?: number }) => request('PATCH', `/projects/${enc(projectId)}`, ProjectResponse, patch),
};
