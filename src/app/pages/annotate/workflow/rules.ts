// The workflow's rules without React (issue 29): what a member may do with an image in a stage,
// the camera that centres an issue, a region kept within the image, and the pins and regions as
// the renderer draws them.
import type { Image, ImageStatus } from '../../../../contract/images';
import type { Role } from '../../../../contract/account';
import { roleCan } from '../../../../contract/permissions';
import { regionInside, type Issue, type Region } from '../../../../contract/workflow';
import type { RenderIssue } from '../../../../workers/render-client';

/** Margin around a centred region, in screen px. */
const CENTRE_MARGIN = 80;
/** The issues panel's width and its gap to the canvas's edge (Workflow.module.css): the canvas it leaves visible. */
export const PANEL_COVER_PX = 320 + 12 * 2;

/**
 * The camera that centres `region` in the part of the viewport left of `rightCover` px (the issues
 * panel lies over the rest), zoomed out (never in) so a region fits.
 */
export function centredCamera(camera: { x: number; y: number; scale: number }, viewport: { width: number; height: number }, region: Region, rightCover = 0) {
  const w = 'w' in region ? region.w : 0, h = 'h' in region ? region.h : 0;
  const visibleW = Math.max(1, viewport.width - rightCover);
  let scale = camera.scale;
  const availW = Math.max(1, visibleW - 2 * CENTRE_MARGIN), availH = Math.max(1, viewport.height - 2 * CENTRE_MARGIN);
  if (w * scale > availW || h * scale > availH) scale = Math.min(availW / w, availH / h);
  const cx = region.x + w / 2, cy = region.y + h / 2;
  return { scale, x: visibleW / 2 - cx * scale, y: viewport.height / 2 - cy * scale };
}

/** A region kept within the image (a drag may start or end outside it); null when nothing of it is on the image. */
export function clampRegion(region: Region, width: number, height: number): Region | null {
  const w = 'w' in region ? region.w : 0, h = 'h' in region ? region.h : 0;
  const x0 = Math.max(0, region.x), y0 = Math.max(0, region.y);
  const x1 = Math.min(width, region.x + w), y1 = Math.min(height, region.y + h);
  if (x1 < x0 || y1 < y0) return null;
  const r = (v: number) => Math.round(v * 100) / 100;
  const out: Region = 'w' in region && x1 - x0 > 0 && y1 - y0 > 0 ? { x: r(x0), y: r(y0), w: r(x1 - x0), h: r(y1 - y0) } : { x: r(x0), y: r(y0) };
  return regionInside(out, width, height) ? out : null;
}

export function renderIssues(issues: readonly Issue[], focusedId: string | null, draft: Region | null): RenderIssue[] {
  const out: RenderIssue[] = [];
  for (const i of issues) {
    if (!i.region) continue;
    out.push({ ...i.region, status: i.status, focused: i.id === focusedId });
  }
  if (draft) out.push({ ...draft, status: 'open', focused: true });
  return out;
}

/** What the current member may do with `image` in `status` (the server decides again). */
export function reviewActions(role: Role | null, userId: string | null, image: Pick<Image, 'assignee_id'>, status: ImageStatus) {
  const inWork = status === 'new' || status === 'annotating';
  const mine = !image.assignee_id || image.assignee_id === userId;
  return {
    canSubmit: Boolean(role && roleCan(role, 'annotations.write') && inWork && mine),
    canReview: Boolean(role && roleCan(role, 'images.review') && status === 'review'),
  };
}
