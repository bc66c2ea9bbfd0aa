// Parses STORAGE_URL for the S3 driver (kept apart from s3.ts so config.ts can validate it at start-up
// without loading the AWS SDK):
//   s3://<bucket>?endpoint=http://host:port&region=eu-west-1&forcePathStyle=true   one shared bucket
//   s3://?endpoint=...   or   s3:///?endpoint=...   or   s3://                       one bucket per organization
// endpoint is optional (AWS itself when absent); region defaults to AWS_REGION, then us-east-1;
// forcePathStyle defaults to true when an endpoint is given (MinIO, s3rver, R2 want it), else false.
export interface S3Location {
  /** The one bucket that holds every organization as a prefix; null: one bucket per organization. */
  bucket: string | null;
  endpoint: string | undefined;
  region: string;
  forcePathStyle: boolean;
}

/** S3's bucket naming rules (dots allowed here: this bucket is chosen by the operator). */
const SHARED_BUCKET_RE = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const PARAMS = new Set(['endpoint', 'region', 'forcePathStyle']);

export function parseS3StorageUrl(raw: string, env: Record<string, string | undefined> = process.env): S3Location {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`must be a URL (got "${raw}")`);
  }
  if (url.protocol !== 's3:') throw new Error(`must start with s3:// (got "${raw}")`);
  if (url.username || url.password) throw new Error('must not carry credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY instead');
  if (url.pathname !== '' && url.pathname !== '/') throw new Error(`names a path (${url.pathname}); only s3://<bucket>?... or s3://?... are supported`);
  if (url.port) throw new Error('must not carry a port: put host and port in the endpoint parameter');
  const bucket = url.hostname || null;
  if (bucket !== null && !SHARED_BUCKET_RE.test(bucket)) throw new Error(`names an invalid bucket "${bucket}" (3-63 lowercase letters, digits, dots, hyphens)`);
  for (const name of url.searchParams.keys()) {
    if (!PARAMS.has(name)) throw new Error(`has an unknown parameter "${name}" (known: ${[...PARAMS].join(', ')})`);
  }
  const endpointRaw = url.searchParams.get('endpoint')?.trim() || undefined;
  if (endpointRaw !== undefined) {
    let endpoint: URL;
    try {
      endpoint = new URL(endpointRaw);
    } catch {
      throw new Error(`has an endpoint that is not a URL ("${endpointRaw}")`);
    }
    if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') throw new Error(`has an endpoint that is not http(s) ("${endpointRaw}")`);
  }
  const region = url.searchParams.get('region')?.trim() || env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim() || 'us-east-1';
  const style = url.searchParams.get('forcePathStyle')?.trim().toLowerCase();
  if (style !== undefined && !['true', 'false', '1', '0'].includes(style)) throw new Error(`has forcePathStyle "${style}"; use true or false`);
  const forcePathStyle = style === undefined ? endpointRaw !== undefined : style === 'true' || style === '1';
  return { bucket, endpoint: endpointRaw?.replace(/\/+$/, ''), region, forcePathStyle };
}
