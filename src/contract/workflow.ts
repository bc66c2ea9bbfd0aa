// The team workflow of issue 29: assignments, the work queue, submit and review, the activity of an
// image and issues pinned to regions with their comment threads. Who may call what is in
// permissions.ts ('images.assign', 'images.review', 'issues.write'); the codes are in errors.ts
// (invalid_assignee, invalid_transition, region_outside_image).
import { z } from 'zod';
import { Image, MAX_BATCH_IDS } from './images';
import { storedText } from './text';

const uuid = (what: string) => z.string().uuid(`${what} must be a UUID`);

/** Longest issue body, comment and review comment, in characters. */
export const MAX_COMMENT_LENGTH = 2000;
/** Most comments one issue holds; a thread past it answers 409 conflict. */
export const MAX_COMMENTS_PER_ISSUE = 500;
/** Most issues one image holds (open or resolved). */
export const MAX_ISSUES_PER_IMAGE = 1000;
export const DEFAULT_ACTIVITY_PAGE = 50;
export const MAX_ACTIVITY_PAGE = 200;

/** Someone as answers show them: the profile's full name, else the e-mail ('Former member' once the account is gone), as the live socket names people. */
export const Person = z.object({ id: z.string(), name: z.string() });
export type Person = z.infer<typeof Person>;

// --- assignments

export const AssignRequest = z
  .object({
    image_ids: z.array(uuid('image id')).min(1, 'image_ids must not be empty').max(MAX_BATCH_IDS, `At most ${MAX_BATCH_IDS} image ids per call`),
    /** Left out: unchanged; null: cleared. */
    assignee_id: uuid('assignee_id').nullable().optional(),
    reviewer_id: uuid('reviewer_id').nullable().optional(),
    /**
     * Consensus (issue 36 §3): how many different annotators each image goes to, MIN_OVERLAP..MAX_OVERLAP
     * (outside: 400 invalid_overlap); null: back to one. Only images nobody has started (409
     * invalid_transition otherwise). Left out: unchanged.
     */
    overlap: z.number({ error: 'overlap must be a number' }).nullable().optional(),
  })
  .strict()
  .refine((b) => b.assignee_id !== undefined || b.reviewer_id !== undefined || b.overlap !== undefined, 'Give assignee_id, reviewer_id, overlap or several');
export type AssignRequest = z.infer<typeof AssignRequest>;
/** The range of `overlap` (issue 36 §3); an image not overlapped has overlap 1. */
export const MIN_OVERLAP = 2;
export const MAX_OVERLAP = 5;
export const AssignResponse = z.object({ success: z.literal(true), updated: z.number() });

// --- the queue

export const QUEUE_ROLES = ['annotate', 'review'] as const;
export type QueueRole = (typeof QUEUE_ROLES)[number];
export const QueueNextRequest = z.object({ role: z.enum(QUEUE_ROLES) }).strict();
/** 200 with the image; 204 (no body) when nothing is left. */
export const QueueNextResponse = z.object({ image: Image });

// --- submit and review

export const SubmitResponse = z.object({ success: z.literal(true), image: Image });

export const REVIEW_DECISIONS = ['accept', 'reject'] as const;
export const ReviewRequest = z
  .object({
    decision: z.enum(REVIEW_DECISIONS),
    /** On reject: becomes an open issue with no region. Ignored on accept. */
    comment: storedText(z.string().trim().min(1, 'comment must not be empty').max(MAX_COMMENT_LENGTH, `comment must be at most ${MAX_COMMENT_LENGTH} characters`), 'comment').optional(),
  })
  .strict();
export type ReviewRequest = z.infer<typeof ReviewRequest>;

// --- issues

/** A rectangle or a point in image pixels (origin top left). */
export const Region = z.union([
  z.object({ x: z.number().finite(), y: z.number().finite(), w: z.number().finite().positive('w must be positive'), h: z.number().finite().positive('h must be positive') }).strict(),
  z.object({ x: z.number().finite(), y: z.number().finite() }).strict(),
]);
export type Region = z.infer<typeof Region>;

/** True when the region lies within a width x height image (a point on the far edge counts). */
export function regionInside(region: Region, width: number, height: number): boolean {
  const w = 'w' in region ? region.w : 0;
  const h = 'h' in region ? region.h : 0;
  return region.x >= 0 && region.y >= 0 && region.x + w <= width && region.y + h <= height;
}

const CommentBody = storedText(z.string().trim().min(1, 'body must not be empty').max(MAX_COMMENT_LENGTH, `body must be at most ${MAX_COMMENT_LENGTH} characters`), 'body');

export const ISSUE_STATUSES = ['open', 'resolved'] as const;
export type IssueStatus = (typeof ISSUE_STATUSES)[number];

export const Comment = z.object({ id: z.string(), body: z.string(), by: Person, at: z.string() });
export type Comment = z.infer<typeof Comment>;

export const Issue = z.object({
  id: z.string(),
  image_id: z.string(),
  status: z.enum(ISSUE_STATUSES),
  region: Region.nullable(),
  created_by: Person,
  created_at: z.string(),
  /** The first is the issue's body; oldest first. */
  comments: z.array(Comment),
});
export type Issue = z.infer<typeof Issue>;

export const CreateIssueRequest = z.object({ body: CommentBody, region: Region.optional() }).strict();
export type CreateIssueRequest = z.infer<typeof CreateIssueRequest>;
export const IssueResponse = z.object({ issue: Issue });
export const IssuesResponse = z.object({ issues: z.array(Issue) });
export const CreateCommentRequest = z.object({ body: CommentBody }).strict();
export const CommentResponse = z.object({ comment: Comment });
export const UpdateIssueRequest = z.object({ status: z.enum(ISSUE_STATUSES) }).strict();

/** The image after the decision; on a reject with a comment, the issue the comment became (else null). */
export const ReviewResponse = z.object({ success: z.literal(true), image: Image, issue: Issue.nullable() });

// --- activity

export const ACTIVITY_TYPES = ['status', 'assign', 'issue', 'comment'] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

/**
 * One event of an image's history. status: from/to are stages. assign: `field` says which, from/to
 * are user ids (null: nobody). issue: opened (to 'open', no from) or its status changed (from/to);
 * comment: a comment on issue_id.
 */
export const ActivityEvent = z.object({
  id: z.string(),
  type: z.enum(ACTIVITY_TYPES),
  at: z.string(),
  by: Person,
  from: z.string().nullable().optional(),
  to: z.string().nullable().optional(),
  field: z.enum(['assignee', 'reviewer']).optional(),
  issue_id: z.string().optional(),
});
export type ActivityEvent = z.infer<typeof ActivityEvent>;

export const ActivityQuery = z.object({
  org_id: uuid('org_id').optional(),
  limit: z.coerce.number().int().min(1).max(MAX_ACTIVITY_PAGE, `limit must be at most ${MAX_ACTIVITY_PAGE}`).default(DEFAULT_ACTIVITY_PAGE),
  /** The next_cursor of the previous page: events older than it. */
  before: z.preprocess((v) => (v === '' ? undefined : v), z.string().regex(/^\d{1,18}$/, 'before must be a cursor from next_cursor').optional()),
});
/** Newest first; next_cursor is null on the last page. */
export const ActivityResponse = z.object({ events: z.array(ActivityEvent), next_cursor: z.string().nullable() });
