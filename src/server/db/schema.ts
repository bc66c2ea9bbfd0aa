// drizzle-orm table definitions. They mirror the SQL migrations in ./migrations, which are the
// source of truth for the database; keep both in step when a migration changes a table.
import { bigint, bigserial, boolean, date, integer, json, jsonb, pgTable, primaryKey, real, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const created = () => ts('created_at').notNull().defaultNow();
const updated = () => ts('updated_at').notNull().defaultNow();

export const authUsers = pgTable('auth_users', {
  id: uuid('id').primaryKey(),
  email: text('email').notNull(),
  encryptedPassword: text('encrypted_password'),
  emailConfirmedAt: ts('email_confirmed_at'),
  confirmationToken: text('confirmation_token'),
  confirmationSentAt: ts('confirmation_sent_at'),
  emailChange: text('email_change'),
  emailChangeToken: text('email_change_token'),
  emailChangeSentAt: ts('email_change_sent_at'),
  userMetaData: jsonb('raw_user_meta_data').$type<Record<string, unknown>>().notNull().default({}),
  appMetaData: jsonb('raw_app_meta_data').$type<Record<string, unknown>>().notNull().default({}),
  lastSignInAt: ts('last_sign_in_at'),
  bannedUntil: ts('banned_until'),
  deletedAt: ts('deleted_at'),
  createdAt: created(),
  updatedAt: updated(),
});

export const authIdentities = pgTable('auth_identities', {
  id: uuid('id').primaryKey(),
  userId: uuid('user_id').notNull(),
  provider: text('provider').notNull(),
  providerId: text('provider_id').notNull(),
  identityData: jsonb('identity_data').$type<Record<string, unknown>>().notNull().default({}),
  lastSignInAt: ts('last_sign_in_at'),
  createdAt: created(),
  updatedAt: updated(),
});

export const authSessions = pgTable('auth_sessions', {
  id: uuid('id').primaryKey(),
  userId: uuid('user_id').notNull(),
  aal: text('aal').notNull().default('aal1'),
  amr: jsonb('amr').$type<{ method: string; timestamp: number }[]>().notNull().default([]),
  userAgent: text('user_agent'),
  ip: text('ip'),
  revokedAt: ts('revoked_at'),
  createdAt: created(),
  updatedAt: updated(),
});

export const authRefreshTokens = pgTable('auth_refresh_tokens', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  tokenHash: text('token_hash').notNull(),
  sessionId: uuid('session_id').notNull(),
  userId: uuid('user_id').notNull(),
  revoked: boolean('revoked').notNull().default(false),
  parentId: bigint('parent_id', { mode: 'number' }),
  createdAt: created(),
});

export const authFlowStates = pgTable('auth_flow_states', {
  id: uuid('id').primaryKey(),
  provider: text('provider').notNull(),
  codeChallenge: text('code_challenge').notNull(),
  codeChallengeMethod: text('code_challenge_method').notNull(),
  redirectTo: text('redirect_to').notNull(),
  oidcNonce: text('oidc_nonce').notNull(),
  oidcCodeVerifier: text('oidc_code_verifier').notNull(),
  authCode: text('auth_code'),
  authCodeIssuedAt: ts('auth_code_issued_at'),
  userId: uuid('user_id'),
  createdAt: created(),
});

export const profiles = pgTable('profiles', {
  id: uuid('id').primaryKey(),
  email: text('email').notNull(),
  fullName: text('full_name'),
  defaultOrganizationId: uuid('default_organization_id'),
  deactivatedAt: ts('deactivated_at'),
  reactivatedAt: ts('reactivated_at'),
  reactivationMessage: text('reactivation_message'),
  /** 'user', or 'api_key' for the principal an API key acts as (0003_teams.sql). */
  kind: text('kind').$type<'user' | 'api_key'>().notNull().default('user'),
  createdAt: created(),
  updatedAt: updated(),
});

export const ROLES = ['owner', 'admin', 'annotator', 'reviewer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const organizations = pgTable('organizations', {
  id: uuid('id').primaryKey(),
  name: text('name').notNull(),
  slug: text('slug').notNull(),
  subscriptionTier: text('subscription_tier').notNull().default('free'),
  gcsBucketName: text('gcs_bucket_name'),
  createdBy: uuid('created_by'),
  deletionScheduledAt: ts('deletion_scheduled_at'),
  createdAt: created(),
  updatedAt: updated(),
});

export const organizationMembers = pgTable(
  'organization_members',
  {
    organizationId: uuid('organization_id').notNull(),
    userId: uuid('user_id').notNull(),
    role: text('role').$type<Role>().notNull(),
    createdAt: created(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.userId] })],
);

export interface ProjectClass {
  name: string;
  /** The older one-type form, kept while `tools` is exactly its own (contract/projects.ts normalizeClass; migration 0016). */
  type?: 'box' | 'polygon' | 'polyline' | 'keypoint';
  color: string;
  /** The tools that may draw the class; absent: every tool (issue 33; contract/projects.ts classTools). */
  tools?: ('box' | 'polygon' | 'polyline' | 'keypoint' | 'mask')[];
  /** A keypoint skeleton class: its points in order and 0-based edges (issue 33). */
  kind?: 'skeleton';
  skeleton?: { points: string[]; edges: [number, number][] };
  /** Attribute definitions (issue 19; contract/projects.ts AttributeDefinition). Stored in the classes JSON, no migration. */
  attributes?: {
    name: string;
    kind: 'checkbox' | 'select' | 'number' | 'text';
    options?: string[];
    default?: string | number | boolean | null;
  }[];
  /** A keypoint class's point names in order (issue 32; contract/projects.ts). Stored in the classes JSON, no migration. */
  keypoints?: string[];
}

export const projects = pgTable('projects', {
  id: uuid('id').primaryKey(),
  organizationId: uuid('organization_id').notNull(),
  name: text('name').notNull(),
  description: text('description'),
  gcsPath: text('gcs_path').notNull(),
  classes: jsonb('classes').$type<ProjectClass[]>().notNull().default([]),
  annotationTypes: jsonb('annotation_types').$type<string[]>().notNull().default(['box']),
  createdBy: uuid('created_by'),
  imageCount: integer('image_count').notNull().default(0),
  completedImageCount: integer('completed_image_count').notNull().default(0),
  annotationCount: integer('annotation_count').notNull().default(0),
  totalSize: bigint('total_size', { mode: 'number' }).notNull().default(0),
  archivedImages: integer('archived_images').notNull().default(0),
  /** Share of an annotator's queue/next answers that are ground-truth images (0023, issue 36 §2). */
  gtRate: real('gt_rate').notNull().default(0),
  /** The F1 a ground-truth attempt needs to pass. */
  gtPassThreshold: real('gt_pass_threshold').notNull().default(0.8),
  createdAt: created(),
  updatedAt: updated(),
});

export const folders = pgTable('folders', {
  id: uuid('id').primaryKey(),
  projectId: uuid('project_id').notNull(),
  name: text('name').notNull(),
  fullPath: text('full_path').notNull(),
  parentFolderPath: text('parent_folder_path').notNull(),
  parentFolderId: uuid('parent_folder_id'),
  createdAt: created(),
});

export const images = pgTable('images', {
  id: uuid('id').primaryKey(),
  projectId: uuid('project_id').notNull(),
  organizationId: uuid('organization_id').notNull(),
  filename: text('filename').notNull(),
  gcsUri: text('gcs_uri').notNull(),
  gcsPath: text('gcs_path').notNull(),
  thumbnailPath: text('thumbnail_path'),
  status: text('status').$type<'new' | 'annotating' | 'review' | 'complete'>().notNull().default('new'),
  virtualFolderPath: text('virtual_folder_path').notNull().default('/'),
  fileSize: bigint('file_size', { mode: 'number' }).notNull().default(0),
  mimeType: text('mime_type').notNull(),
  imageWidth: integer('image_width'),
  imageHeight: integer('image_height'),
  annotationCount: integer('annotation_count').notNull().default(0),
  isArchived: boolean('is_archived').notNull().default(false),
  isEdited: boolean('is_edited').notNull().default(false),
  thumbnailSize: bigint('thumbnail_size', { mode: 'number' }).notNull().default(0),
  /** Workflow (0009_workflow.sql): who annotates, who reviews, how many issues are open. */
  assigneeId: uuid('assignee_id'),
  reviewerId: uuid('reviewer_id'),
  openIssues: integer('open_issues').notNull().default(0),
  /** Annotations whose source is a pending model prediction (issue 34); kept by triggers on annotations (0019_prelabel.sql). Read only. */
  pendingPredictions: integer('pending_predictions').notNull().default(0),
  /** How many different annotators the image goes to (0024, issue 36 §3): 1 for a normal image, 2..5 for consensus. */
  overlap: integer('overlap').notNull().default(1),
  /** The distinct class names of the image's annotations, sorted; kept by triggers on annotations (0011_image_class_names.sql). Read only. */
  classNames: text('class_names').array().notNull().default(sql`'{}'`),
  createdAt: created(),
  updatedAt: updated(),
});

// Workflow (0009_workflow.sql): issues pinned to regions, their comments, each image's events.

export type IssueRegion = { x: number; y: number; w: number; h: number } | { x: number; y: number };

export const issues = pgTable('issues', {
  id: uuid('id').primaryKey(),
  imageId: uuid('image_id').notNull(),
  organizationId: uuid('organization_id').notNull(),
  status: text('status').$type<'open' | 'resolved'>().notNull().default('open'),
  region: jsonb('region').$type<IssueRegion | null>(),
  createdBy: uuid('created_by'),
  createdAt: created(),
  updatedAt: updated(),
});

export const issueComments = pgTable('issue_comments', {
  id: uuid('id').primaryKey(),
  issueId: uuid('issue_id').notNull(),
  body: text('body').notNull(),
  createdBy: uuid('created_by'),
  createdAt: created(),
});

export const imageEvents = pgTable('image_events', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  imageId: uuid('image_id').notNull(),
  type: text('type').$type<'status' | 'assign' | 'issue' | 'comment'>().notNull(),
  userId: uuid('user_id'),
  field: text('field').$type<'assignee' | 'reviewer' | null>(),
  fromValue: text('from_value'),
  toValue: text('to_value'),
  issueId: uuid('issue_id'),
  createdAt: created(),
});

/** Image counts per folder / archive state / status / mime type, kept by triggers on images (0002_datasets.sql). Read only. */
export const imageFolderStats = pgTable(
  'image_folder_stats',
  {
    projectId: uuid('project_id').notNull(),
    virtualFolderPath: text('virtual_folder_path').notNull(),
    isArchived: boolean('is_archived').notNull(),
    status: text('status').notNull(),
    mimeType: text('mime_type').notNull(),
    imageCount: bigint('image_count', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.virtualFolderPath, t.isArchived, t.status, t.mimeType] })],
);

/** Images per class per archive state and folder, kept by triggers on images (0015_image_class_stats.sql). Read only. */
export const imageClassStats = pgTable(
  'image_class_stats',
  {
    projectId: uuid('project_id').notNull(),
    className: text('class_name').notNull(),
    isArchived: boolean('is_archived').notNull(),
    virtualFolderPath: text('virtual_folder_path').notNull(),
    imageCount: bigint('image_count', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.className, t.isArchived, t.virtualFolderPath] })],
);

/** Filenames held for an upload in progress (0002_datasets.sql). */
export const uploadReservations = pgTable(
  'upload_reservations',
  {
    projectId: uuid('project_id').notNull(),
    filename: text('filename').notNull(),
    reservedBy: uuid('reserved_by'),
    expiresAt: ts('expires_at').notNull(),
    /** The staging object the latest upload URL for this name writes (0007_upload_staging.sql); null for check-filename and image-edit holds. */
    stagingKey: text('staging_key'),
    createdAt: created(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.filename] })],
);

/** The version header of an image's annotations (0006_annotation_rows.sql); the shapes are rows of `annotations`. */
export const annotationDocuments = pgTable('annotation_documents', {
  imageId: uuid('image_id').primaryKey(),
  projectId: uuid('project_id').notNull(),
  /** The old one-document layout: set only until the start-up migration moved it into rows (db/annotation-rows.ts). */
  annotations: json('annotations').$type<unknown[] | null>(),
  version: integer('version').notNull().default(0),
  /** Paint order number of the next new shape. */
  nextSeq: bigint('next_seq', { mode: 'number' }).notNull().default(0),
  updatedBy: uuid('updated_by'),
  updatedAt: updated(),
});

/** One row per annotation (0006_annotation_rows.sql). */
export const annotations = pgTable(
  'annotations',
  {
    imageId: uuid('image_id').notNull(),
    id: text('id').notNull(),
    seq: bigint('seq', { mode: 'number' }).notNull(),
    name: text('name').notNull(),
    kind: text('kind').notNull(),
    data: json('data').$type<Record<string, unknown>>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.imageId, t.id] })],
);

/** One row per committed save: the change log (0006_annotation_rows.sql). */
export const annotationChanges = pgTable(
  'annotation_changes',
  {
    imageId: uuid('image_id').notNull(),
    version: integer('version').notNull(),
    userId: uuid('user_id'),
    createdAt: created(),
    upserts: json('upserts').$type<Record<string, unknown>[]>().notNull(),
    removedIds: json('removed_ids').$type<string[]>().notNull(),
    before: json('before').$type<Record<string, unknown>[]>().notNull(),
    added: integer('added').notNull().default(0),
    changed: integer('changed').notNull().default(0),
    removed: integer('removed').notNull().default(0),
    restoredFrom: integer('restored_from'),
    /** The version a reviewer's consensus merge wrote (0024, issue 36 §3). */
    merged: boolean('merged').notNull().default(false),
  },
  (t) => [primaryKey({ columns: [t.imageId, t.version] })],
);

export const usageRecords = pgTable('usage_records', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  organizationId: uuid('organization_id').notNull(),
  projectId: uuid('project_id'),
  imageId: uuid('image_id'),
  annotationType: text('annotation_type').notNull(),
  annotationCount: integer('annotation_count').notNull().default(1),
  createdAt: created(),
});

export const jobs = pgTable('jobs', {
  id: uuid('id').primaryKey(),
  kind: text('kind').notNull(),
  organizationId: uuid('organization_id'),
  payload: jsonb('payload').$type<Record<string, unknown>>().notNull().default({}),
  status: text('status').$type<'queued' | 'running' | 'completed' | 'failed' | 'cancelled'>().notNull().default('queued'),
  progress: integer('progress').notNull().default(0),
  result: jsonb('result').$type<Record<string, unknown>>(),
  error: text('error'),
  attempts: integer('attempts').notNull().default(0),
  runAfter: ts('run_after').notNull().defaultNow(),
  lockedBy: text('locked_by'),
  lockedUntil: ts('locked_until'),
  createdBy: uuid('created_by'),
  createdAt: created(),
  updatedAt: updated(),
});

// Dataset imports (0008_imports.sql).

export const imports = pgTable('imports', {
  id: uuid('id').primaryKey(),
  organizationId: uuid('organization_id').notNull(),
  projectId: uuid('project_id').notNull(),
  createdBy: uuid('created_by'),
  filename: text('filename').notNull(),
  size: bigint('size', { mode: 'number' }).notNull(),
  format: text('format').notNull().default('auto'),
  folderPath: text('folder_path').notNull().default(''),
  stagingKey: text('staging_key').notNull(),
  status: text('status').$type<'uploading' | 'queued' | 'running' | 'done' | 'failed' | 'cancelled'>().notNull().default('uploading'),
  done: integer('done').notNull().default(0),
  total: integer('total').notNull().default(0),
  report: jsonb('report').$type<Record<string, unknown>>().notNull().default({}),
  error: text('error'),
  /** When someone asked to cancel (0027): a running import stays 'running' until its worker has stopped and written its report. */
  cancelRequestedAt: ts('cancel_requested_at'),
  createdAt: created(),
  updatedAt: updated(),
});

// Teams (0003_teams.sql): invites, API keys, the account deletion schedule.

export const organizationInvites = pgTable('organization_invites', {
  id: uuid('id').primaryKey(),
  organizationId: uuid('organization_id').notNull(),
  email: text('email').notNull(),
  role: text('role').$type<Role>().notNull(),
  tokenHash: text('token_hash').notNull(),
  invitedBy: uuid('invited_by'),
  expiresAt: ts('expires_at').notNull(),
  acceptedAt: ts('accepted_at'),
  acceptedBy: uuid('accepted_by'),
  revokedAt: ts('revoked_at'),
  createdAt: created(),
});

/** A key's id is also its principal's profile id and membership user id. */
export const apiKeys = pgTable('api_keys', {
  id: uuid('id').primaryKey(),
  organizationId: uuid('organization_id').notNull(),
  createdBy: uuid('created_by').notNull(),
  name: text('name').notNull(),
  prefix: text('prefix').notNull(),
  keyHash: text('key_hash').notNull(),
  role: text('role').$type<Role>().notNull(),
  lastUsedAt: ts('last_used_at'),
  revokedAt: ts('revoked_at'),
  createdAt: created(),
});

export const accountDeletions = pgTable('account_deletions', {
  userId: uuid('user_id').primaryKey(),
  requestedAt: ts('requested_at').notNull(),
  purgeAfter: ts('purge_after').notNull(),
  organizationIds: jsonb('organization_ids').$type<string[]>().notNull().default([]),
  finalBilling: jsonb('final_billing').$type<unknown[]>().notNull().default([]),
});

/** One source image of an image-edit job (0004_image_edit.sql); the job itself is a `jobs` row of kind 'image_edit'. */
export const imageEditItems = pgTable(
  'image_edit_items',
  {
    jobId: uuid('job_id').notNull(),
    position: integer('position').notNull(),
    sourceImageId: uuid('source_image_id').notNull(),
    sourceFilename: text('source_filename').notNull(),
    status: text('status').$type<'pending' | 'generated' | 'registered' | 'failed'>().notNull().default('pending'),
    outputFilename: text('output_filename'),
    outputMime: text('output_mime'),
    labelMode: text('label_mode').$type<'exact' | 'copy' | null>(),
    transforms: jsonb('transforms').$type<string[]>().notNull().default([]),
    resultImageId: uuid('result_image_id'),
    registration: jsonb('registration').$type<Record<string, unknown>>(),
    error: text('error'),
    updatedAt: updated(),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.position] })],
);

// Models (0017_models.sql, issue 34): an organization's own ONNX files and HTTP endpoints.
export const models = pgTable('models', {
  id: uuid('id').primaryKey(),
  organizationId: uuid('organization_id').notNull(),
  createdBy: uuid('created_by'),
  name: text('name').notNull(),
  source: text('source').$type<'onnx' | 'http'>().notNull(),
  kind: text('kind').$type<'detect' | 'segment' | 'pose'>().notNull(),
  status: text('status').$type<'pending' | 'ready'>().notNull().default('ready'),
  classes: jsonb('classes').$type<string[]>().notNull().default([]),
  inputSize: integer('input_size'),
  filename: text('filename'),
  size: bigint('size', { mode: 'number' }),
  stagingKey: text('staging_key'),
  objectKey: text('object_key'),
  url: text('url'),
  headers: jsonb('headers').$type<Record<string, string>>().notNull().default({}),
  createdAt: created(),
  updatedAt: updated(),
});

// Pre-label jobs (0019_prelabel.sql): one row per job, one per image it covers.

export const prelabelJobs = pgTable('prelabel_jobs', {
  id: uuid('id').primaryKey(),
  organizationId: uuid('organization_id').notNull(),
  projectId: uuid('project_id').notNull(),
  modelId: text('model_id').notNull(),
  createdBy: uuid('created_by').notNull(),
  options: jsonb('options').$type<Record<string, unknown>>().notNull().default({}),
  status: text('status').$type<'queued' | 'running' | 'done' | 'failed' | 'cancelled'>().notNull().default('queued'),
  total: integer('total').notNull().default(0),
  error: text('error'),
  createdAt: created(),
  updatedAt: updated(),
});

export const prelabelJobImages = pgTable(
  'prelabel_job_images',
  {
    jobId: uuid('job_id').notNull(),
    imageId: uuid('image_id').notNull(),
    seq: integer('seq').notNull(),
    state: text('state').$type<'todo' | 'done' | 'skipped'>().notNull().default('todo'),
    predictions: integer('predictions').notNull().default(0),
    reason: text('reason'),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.imageId] })],
);

// Analytics rollups (0020_analytics.sql, issue 36): kept by triggers only; services/analytics reads them.

/** Per project, UTC day, member and class ('' for the counts without a class): what the member did. Read only. */
export const analyticsMemberDays = pgTable(
  'analytics_member_days',
  {
    projectId: uuid('project_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    userId: uuid('user_id').notNull(),
    className: text('class_name').notNull(),
    shapesCreated: integer('shapes_created').notNull().default(0),
    shapesEdited: integer('shapes_edited').notNull().default(0),
    shapesDeleted: integer('shapes_deleted').notNull().default(0),
    imagesSubmitted: integer('images_submitted').notNull().default(0),
    imagesAccepted: integer('images_accepted').notNull().default(0),
    imagesRejected: integer('images_rejected').notNull().default(0),
    issuesOpened: integer('issues_opened').notNull().default(0),
    issuesResolved: integer('issues_resolved').notNull().default(0),
    activeMs: bigint('active_ms', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.day, t.userId, t.className] })],
);

/** Each member's last save time per project, for the next save's active-time gap. Read only. */
export const analyticsMemberClock = pgTable(
  'analytics_member_clock',
  { projectId: uuid('project_id').notNull(), userId: uuid('user_id').notNull(), lastSaveAt: timestamp('last_save_at', { withTimezone: true }) },
  (t) => [primaryKey({ columns: [t.projectId, t.userId] })],
);

/** Images (not archived) that entered (+) or left (-) each stage per project and UTC day. Read only. */
export const analyticsStageDays = pgTable(
  'analytics_stage_days',
  { projectId: uuid('project_id').notNull(), day: date('day', { mode: 'string' }).notNull(), status: text('status').notNull(), delta: bigint('delta', { mode: 'number' }).notNull() },
  (t) => [primaryKey({ columns: [t.projectId, t.day, t.status] })],
);

/** Ground truth (0023, issue 36 §2): the image's accepted annotations when a reviewer marked it. */
export const groundTruth = pgTable('ground_truth', {
  imageId: uuid('image_id').primaryKey(),
  projectId: uuid('project_id').notNull(),
  annotations: jsonb('annotations').$type<unknown[]>().notNull(),
  markedBy: uuid('marked_by'),
  markedAt: timestamp('marked_at', { withTimezone: true }).notNull().defaultNow(),
});

/** One person's attempt at a ground-truth image: their scoring layer, then its score once submitted. */
export const gtAttempts = pgTable('gt_attempts', {
  id: uuid('id').primaryKey(),
  imageId: uuid('image_id').notNull(),
  projectId: uuid('project_id').notNull(),
  userId: uuid('user_id').notNull(),
  annotations: jsonb('annotations').$type<unknown[]>().notNull().default([]),
  version: integer('version').notNull().default(0),
  startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
  savedAt: timestamp('saved_at', { withTimezone: true }),
  submittedAt: timestamp('submitted_at', { withTimezone: true }),
  score: jsonb('score').$type<Record<string, unknown>>(),
});

/** One annotator's draft of an overlapped image (0024, issue 36 §3): their own list until the reviewer merges. */
export const drafts = pgTable('drafts', {
  id: uuid('id').primaryKey(),
  imageId: uuid('image_id').notNull(),
  projectId: uuid('project_id').notNull(),
  userId: uuid('user_id').notNull(),
  annotations: jsonb('annotations').$type<unknown[]>().notNull().default([]),
  version: integer('version').notNull().default(0),
  takenAt: timestamp('taken_at', { withTimezone: true }).notNull().defaultNow(),
  savedAt: timestamp('saved_at', { withTimezone: true }),
  submittedAt: timestamp('submitted_at', { withTimezone: true }),
});
