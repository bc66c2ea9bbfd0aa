// The team workflow calls of issue 29 (src/contract/workflow.ts): assign, the work queue, submit
// and review, an image's activity, issues pinned to regions and their comments. Answers are
// parsed with the contract's schemas by client.ts's request(); failures throw ApiRequestError.
import type { Image } from '../../contract/images';
import {
  ActivityResponse,
  AssignResponse,
  CommentResponse,
  IssueResponse,
  IssuesResponse,
  QueueNextResponse,
  ReviewResponse,
  SubmitResponse,
  type AssignRequest,
  type IssueStatus,
  type QueueRole,
  type Region,
  type ReviewRequest,
} from '../../contract/workflow';
import { request } from './client';

const enc = encodeURIComponent;
/** The organization the caller acts in, as the other image calls name it. */
const org = (orgId: string | undefined) => (orgId ? `?org_id=${enc(orgId)}` : '');

export const workflowApi = {
  /** Sets (or clears, with null) the assignee and/or the reviewer of up to MAX_BATCH_IDS images. */
  assign: (input: AssignRequest, orgId?: string) => request('POST', `/images/assign${org(orgId)}`, AssignResponse, input),

  /** The caller's next image to annotate or review; null when nothing is left (204). */
  async queueNext(projectId: string, role: QueueRole, orgId?: string): Promise<Image | null> {
    const res = await request('POST', `/projects/${enc(projectId)}/queue/next${org(orgId)}`, QueueNextResponse.nullable(), { role });
    return res?.image ?? null;
  },

  submit: (imageId: string, orgId?: string) => request('POST', `/images/${enc(imageId)}/submit${org(orgId)}`, SubmitResponse),
  review: (imageId: string, body: ReviewRequest, orgId?: string) => request('POST', `/images/${enc(imageId)}/review${org(orgId)}`, ReviewResponse, body),

  activity: (imageId: string, opts: { limit?: number; before?: string; orgId?: string } = {}) => {
    const q = new URLSearchParams();
    if (opts.orgId) q.set('org_id', opts.orgId);
    if (opts.limit) q.set('limit', String(opts.limit));
    if (opts.before) q.set('before', opts.before);
    const qs = q.toString();
    return request('GET', `/images/${enc(imageId)}/activity${qs ? `?${qs}` : ''}`, ActivityResponse);
  },

  listIssues: async (imageId: string, orgId?: string) => (await request('GET', `/images/${enc(imageId)}/issues${org(orgId)}`, IssuesResponse)).issues,
  createIssue: async (imageId: string, body: string, region: Region | undefined, orgId?: string) =>
    (await request('POST', `/images/${enc(imageId)}/issues${org(orgId)}`, IssueResponse, region ? { body, region } : { body })).issue,
  addComment: async (issueId: string, body: string, orgId?: string) => (await request('POST', `/issues/${enc(issueId)}/comments${org(orgId)}`, CommentResponse, { body })).comment,
  setIssueStatus: async (issueId: string, status: IssueStatus, orgId?: string) => (await request('PATCH', `/issues/${enc(issueId)}${org(orgId)}`, IssueResponse, { status })).issue,
};
