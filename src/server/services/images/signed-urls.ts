// Signed download URLs of images: one (GET /images/{id}/signed-url) or many (batch-signed-urls).
import { inArray } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { images } from '../../db/schema';
import { errors } from '../../errors';
import { imageFor, requireMember } from '../access';
import { bucketFor, getUrlSeconds, previewKey } from '../stored-objects';

export async function signedImageUrl(ctx: AppContext, userId: string, imageId: string, q: { org_id?: string; expiration_minutes: number; variant: 'original' | 'thumbnail' }) {
  const row = await imageFor(ctx, userId, imageId, 'images.read', q.org_id);
  const bucket = await bucketFor(ctx, row.organizationId);
  const signed = await ctx.storage.signedDownloadUrl(bucket, previewKey(row, q.variant), { expiresInSeconds: getUrlSeconds(q.expiration_minutes) });
  return { signed_url: signed.url, expires_at: signed.expiresAt.toISOString(), variant: q.variant };
}

/**
 * Signed URLs for many images at once. Every id that exists must be readable by the caller (and of
 * org_id when given): an image of another organization answers 404 'Image not found' for the whole
 * call, as GET /images/{id} does, and nothing is signed. Ids with no image (deleted meanwhile) are
 * listed in missing_ids.
 */
export async function batchSignedUrls(ctx: AppContext, userId: string, body: { image_ids: string[]; expiration_minutes: number; variant: 'original' | 'thumbnail' }, orgId?: string) {
  const ids = [...new Set(body.image_ids)];
  const rows = await ctx.db.select().from(images).where(inArray(images.id, ids));
  const buckets = new Map<string, string>(); // organization -> bucket
  for (const orgIdOfRow of new Set(rows.map((r) => r.organizationId))) {
    if (orgId && orgId !== orgIdOfRow) throw errors.notFound('Image');
    await requireMember(ctx.db, userId, orgIdOfRow, 'images.read', 'Image');
    buckets.set(orgIdOfRow, await bucketFor(ctx, orgIdOfRow));
  }
  const signed_urls: Record<string, string> = {};
  const expiresInSeconds = getUrlSeconds(body.expiration_minutes);
  let expiresAt = new Date(Date.now() + expiresInSeconds * 1000);
  // All at once: each signature is an asynchronous HMAC; awaited one after another, a batch of 50
  // waited for 50 turns of the event loop, each behind other requests' work (bench/load.bench.ts).
  const signed = await Promise.all(rows.map((row) => ctx.storage.signedDownloadUrl(buckets.get(row.organizationId)!, previewKey(row, body.variant), { expiresInSeconds })));
  rows.forEach((row, i) => {
    signed_urls[row.id] = signed[i]!.url;
    if (signed[i]!.expiresAt < expiresAt) expiresAt = signed[i]!.expiresAt;
  });
  return { signed_urls, expires_at: expiresAt.toISOString(), missing_ids: ids.filter((id) => !(id in signed_urls)) };
}
