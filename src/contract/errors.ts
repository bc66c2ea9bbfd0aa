// Every error code the product API answers (`{"success": false, "error", "code"}`), with its HTTP
// status and a default message: one list for the server, which can only throw these codes with
// these statuses (src/server/http/errors.ts), and for clients, which read a status from a code
// (a batch answer carries codes per item). The identity routes /api/v1/auth/* pass on the identity
// service's own GoTrue codes as they are (src/server/auth/gotrue-errors.ts).

export const API_ERRORS = {
  account_deactivated: { status: 401, message: 'The account is deactivated' },
  account_deleted: { status: 401, message: 'The account was deleted' },
  already_member: { status: 409, message: 'Already a member of this organization' },
  api_key_not_allowed: { status: 403, message: 'API keys cannot call this route' },
  auth_admin_not_configured: { status: 503, message: 'Account administration is not configured' },
  bad_jwt: { status: 401, message: 'Invalid or expired token' },
  bad_request: { status: 400, message: 'Bad request' },
  box_outside_image: { status: 400, message: 'The box is outside the image' },
  bucket_not_found: { status: 404, message: 'Bucket not found' },
  cancelled: { status: 499, message: 'The request was cancelled' },
  conflict: { status: 409, message: 'Conflict' },
  conflicting_changes: { status: 400, message: 'The changes contradict each other' },
  content_type_mismatch: { status: 415, message: 'The content type does not match' },
  corrupt_image: { status: 415, message: 'The image file is corrupt' },
  duplicate_annotation_id: { status: 400, message: 'Duplicate annotation id' },
  empty_mask: { status: 400, message: 'The mask is empty' },
  file_too_large: { status: 413, message: 'The file is too large' },
  filename_mismatch: { status: 400, message: 'The filename does not match' },
  filename_taken: { status: 409, message: 'The filename is already used' },
  folder_exists: { status: 409, message: 'The folder already exists' },
  folder_not_empty: { status: 409, message: 'The folder is not empty' },
  forbidden: { status: 403, message: 'You are not allowed to do this' },
  gone: { status: 410, message: 'Gone' },
  history_expired: { status: 410, message: 'The history asked for is past its retention' },
  image_file_missing: { status: 404, message: 'The image file is missing from storage' },
  image_size_unknown: { status: 400, message: 'The image size is unknown' },
  image_unreadable: { status: 422, message: 'The image could not be read' },
  import_started: { status: 409, message: 'The import has already started' },
  internal_error: { status: 500, message: 'Internal server error' },
  invalid_annotation: { status: 400, message: 'Invalid annotation' },
  invalid_box: { status: 400, message: 'The box needs a positive width and height' },
  invalid_assignee: { status: 400, message: 'That person cannot be given this work' },
  invalid_api_key: { status: 401, message: 'Invalid API key' },
  invalid_export_name: { status: 400, message: 'Invalid export name' },
  invalid_filename: { status: 400, message: 'Invalid filename' },
  invalid_folder_name: { status: 400, message: 'Invalid folder name' },
  invalid_folder_path: { status: 400, message: 'Invalid folder path' },
  invalid_json: { status: 400, message: 'Malformed JSON body' },
  invalid_key: { status: 400, message: 'Invalid object key' },
  invalid_location: { status: 400, message: 'Invalid storage location' },
  invalid_mask: { status: 400, message: 'Invalid mask' },
  invalid_mime_type: { status: 400, message: 'Invalid mime type' },
  invalid_move: { status: 400, message: 'Invalid move' },
  invalid_point: { status: 400, message: 'Invalid point' },
  invalid_polygon: { status: 400, message: 'Invalid polygon' },
  invalid_transition: { status: 409, message: 'The image is not in a stage that allows this' },
  invalid_token: { status: 400, message: 'The signed URL token is invalid' },
  invalid_version: { status: 400, message: 'Invalid version' },
  invite_expired: { status: 410, message: 'This invite has expired' },
  invite_revoked: { status: 409, message: 'This invite was withdrawn' },
  invite_used: { status: 409, message: 'This invite was already used' },
  invite_wrong_email: { status: 403, message: 'This invite is for another e-mail address' },
  last_owner: { status: 409, message: 'An organization must keep at least one owner' },
  length_required: { status: 411, message: 'Content-Length required' },
  missing_token: { status: 400, message: 'The signed URL has no token' },
  no_classes_selected: { status: 400, message: 'No classes selected' },
  no_mask: { status: 400, message: 'No mask' },
  no_points: { status: 400, message: 'No points' },
  no_positive_point: { status: 400, message: 'No positive point' },
  no_selection: { status: 400, message: 'Nothing selected' },
  no_token: { status: 401, message: 'No token' },
  not_found: { status: 404, message: 'Not found' },
  nothing_to_export: { status: 400, message: 'Nothing to export' },
  object_not_found: { status: 400, message: 'No uploaded file found' },
  owner_only: { status: 403, message: 'Only an owner can do this' },
  ownership_transfer_required: { status: 409, message: 'Transfer the organizations you own first' },
  payload_too_large: { status: 413, message: 'Request body is too large' },
  point_outside_image: { status: 400, message: 'The point is outside the image' },
  region_outside_image: { status: 400, message: 'The region is outside the image' },
  range_not_satisfiable: { status: 416, message: 'Range not satisfiable' },
  rate_limited: { status: 429, message: 'Too many requests, slow down' },
  role_ceiling: { status: 403, message: 'The role is above yours' },
  session_not_found: { status: 401, message: 'Session not found' },
  slug_taken: { status: 409, message: 'The slug is taken' },
  storage_not_configured: { status: 409, message: 'The organization has no storage bucket yet' },
  token_expired: { status: 403, message: 'The signed URL has expired' },
  token_wrong_method: { status: 403, message: 'This signed URL allows another method' },
  token_wrong_object: { status: 403, message: 'This signed URL is for another object' },
  too_many_pixels: { status: 413, message: 'The image has too many pixels' },
  too_many_points: { status: 400, message: 'Too many points' },
  type_mismatch: { status: 415, message: "The file's bytes are another type than its name says" },
  unauthorized: { status: 401, message: 'Invalid or expired token' },
  unavailable: { status: 503, message: 'Service unavailable' },
  unknown_class: { status: 400, message: 'Unknown class' },
  unsafe_svg: { status: 415, message: 'The SVG was refused' },
  unsupported_media_type: { status: 415, message: 'Unsupported content type' },
  upgrade_required: { status: 426, message: 'This is a WebSocket: connect with an Upgrade request' },
  user_banned: { status: 401, message: 'The user is banned' },
  user_not_found: { status: 401, message: 'User not found' },
  validation_failed: { status: 400, message: 'Invalid request' },
  version_conflict: { status: 409, message: 'The annotations changed since they were loaded' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ApiErrorCode = keyof typeof API_ERRORS;

/** The codes answered with HTTP status S. */
export type ApiErrorCodeWith<S extends number> = { [K in ApiErrorCode]: (typeof API_ERRORS)[K]['status'] extends S ? K : never }[ApiErrorCode];

export function isApiErrorCode(code: string): code is ApiErrorCode {
  return Object.prototype.hasOwnProperty.call(API_ERRORS, code);
}

/** The status a code is answered with; `fallback` for a code not in the list (an identity service's own). */
export function statusOfCode(code: string, fallback = 400): number {
  return isApiErrorCode(code) ? API_ERRORS[code].status : fallback;
}
