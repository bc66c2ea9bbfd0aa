import { describe, expect, it } from 'vitest';
import { centredCamera, clampRegion, renderIssues, reviewActions } from './rules';

describe('reviewActions', () => {
  it('offers Submit to the assignee (or anyone who annotates an unassigned image) while the image is in work', () => {
    expect(reviewActions('annotator', 'u1', { assignee_id: 'u1' }, 'annotating')).toEqual({ canSubmit: true, canReview: false });
    expect(reviewActions('annotator', 'u1', { assignee_id: null }, 'new')).toEqual({ canSubmit: true, canReview: false });
    expect(reviewActions('annotator', 'u1', { assignee_id: 'u2' }, 'annotating').canSubmit).toBe(false);
    expect(reviewActions('annotator', 'u1', { assignee_id: 'u1' }, 'review').canSubmit).toBe(false);
    expect(reviewActions('viewer', 'u1', { assignee_id: null }, 'new').canSubmit).toBe(false);
  });

  it('offers Accept and Reject to reviewers, admins and owners of an image in review only', () => {
    for (const role of ['reviewer', 'admin', 'owner'] as const) expect(reviewActions(role, 'u1', { assignee_id: 'u2' }, 'review').canReview).toBe(true);
    expect(reviewActions('annotator', 'u1', { assignee_id: 'u1' }, 'review').canReview).toBe(false);
    expect(reviewActions('reviewer', 'u1', { assignee_id: null }, 'complete').canReview).toBe(false);
    expect(reviewActions(null, null, { assignee_id: null }, 'review')).toEqual({ canSubmit: false, canReview: false });
  });
});

describe('centredCamera', () => {
  it('puts a point at the centre of the canvas left uncovered, keeping the zoom', () => {
    const c = centredCamera({ x: 0, y: 0, scale: 2 }, { width: 1000, height: 600 }, { x: 100, y: 50 }, 200);
    expect(c.scale).toBe(2);
    expect(100 * c.scale + c.x).toBe(400);
    expect(50 * c.scale + c.y).toBe(300);
  });

  it('zooms out so a large region fits, never in', () => {
    const c = centredCamera({ x: 0, y: 0, scale: 1 }, { width: 1000, height: 600 }, { x: 0, y: 0, w: 2000, h: 100 });
    expect(c.scale).toBeCloseTo((1000 - 160) / 2000);
    expect(centredCamera({ x: 0, y: 0, scale: 1 }, { width: 1000, height: 600 }, { x: 0, y: 0, w: 10, h: 10 }).scale).toBe(1);
  });
});

describe('clampRegion', () => {
  it('keeps a dragged region within the image and refuses one wholly outside it', () => {
    expect(clampRegion({ x: -10, y: 20, w: 50, h: 500 }, 100, 200)).toEqual({ x: 0, y: 20, w: 40, h: 180 });
    expect(clampRegion({ x: 30, y: 40 }, 100, 200)).toEqual({ x: 30, y: 40 });
    expect(clampRegion({ x: 300, y: 40 }, 100, 200)).toBeNull();
    expect(clampRegion({ x: 120, y: 10, w: 30, h: 30 }, 100, 200)).toBeNull();
  });
});

describe('renderIssues', () => {
  it('draws the pinned issues and the draft, the chosen one focused, and leaves whole-image issues out', () => {
    const by = { id: 'u', name: 'Rita' };
    const issue = (id: string, region: { x: number; y: number } | null, status: 'open' | 'resolved' = 'open') => ({ id, image_id: 'i', status, region, created_by: by, created_at: '', comments: [] });
    expect(renderIssues([issue('a', { x: 1, y: 2 }), issue('b', null), issue('c', { x: 3, y: 4 }, 'resolved')], 'c', { x: 5, y: 6 })).toEqual([
      { x: 1, y: 2, status: 'open', focused: false },
      { x: 3, y: 4, status: 'resolved', focused: true },
      { x: 5, y: 6, status: 'open', focused: true },
    ]);
  });
});
