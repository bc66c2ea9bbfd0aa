// What the editor reports as usage for a creation action, and that a failure stays a log line.
import { describe, expect, it, vi } from 'vitest';
import type { EditorAnnotation } from '../../engine';
import { recordCreated } from './usage';

const target = { orgId: 'org', projectId: 'project', imageId: 'image' };
const b = (id: string): EditorAnnotation => ({ id, type: 'box', class: 'car', x: 0, y: 0, width: 20, height: 20, attributes: [] });
const k = (id: string): EditorAnnotation => ({ id, type: 'keypoint', class: 'eye', x: 1, y: 1, attributes: [] });

describe('recordCreated', () => {
  it('sends one record per kind of shape with its count', async () => {
    const send = vi.fn(async () => ({ success: true as const, id: 1 }));
    await recordCreated(target, [b('1'), k('2'), b('3'), undefined], send);
    expect(send.mock.calls).toEqual([
      [{ organization_id: 'org', project_id: 'project', image_id: 'image', annotation_type: 'bbox', annotation_count: 2 }],
      [{ organization_id: 'org', project_id: 'project', image_id: 'image', annotation_type: 'keypoint', annotation_count: 1 }],
    ]);
  });

  it('sends nothing when nothing was created', async () => {
    const send = vi.fn(async () => ({ success: true as const, id: 1 }));
    await recordCreated(target, [], send);
    expect(send).not.toHaveBeenCalled();
  });

  it('only logs a failed record', async () => {
    const log = vi.fn();
    const failure = new Error('API Error: 503 unavailable');
    await expect(recordCreated(target, [b('1')], async () => Promise.reject(failure), log)).resolves.toBeUndefined();
    expect(log).toHaveBeenCalledWith('Failed to record annotation usage:', failure);
  });
});
