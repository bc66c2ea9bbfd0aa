// The `draft` message (issue 35): an unsaved edit relayed to the image's other people. What a
// client may send is checked here, as the server checks it: the shapes in the stored format, at
// most LIVE_MAX_DRAFT_SHAPES of them, at least one change, no unknown fields, within the byte cap.
import { describe, expect, it } from 'vitest';
import { LIVE_MAX_DRAFT_SHAPES, LIVE_MAX_MESSAGE_BYTES, LiveServerMessage, parseClientMessage } from './live';

const IMAGE = '00000000-0000-4000-8000-000000000001';
const box = (id: string) => ({ id, name: 'car', bounding_box: { x: 1, y: 2, w: 30, h: 40 } });
const draft = (over: Record<string, unknown> = {}) => JSON.stringify({ type: 'draft', image_id: IMAGE, base_version: 3, upserts: [box('a')], removed_ids: [], ...over });

describe('draft (client)', () => {
  it('takes shapes in the stored format and removed ids', () => {
    const parsed = parseClientMessage(draft({ removed_ids: ['b'] }));
    expect(parsed.ok && parsed.message).toEqual({ type: 'draft', image_id: IMAGE, base_version: 3, upserts: [box('a')], removed_ids: ['b'] });
    expect(parseClientMessage(draft({ upserts: [], removed_ids: ['b'] })).ok).toBe(true);
  });

  it('refuses an empty draft, a shape that is no stored annotation, unknown fields and a bad image id', () => {
    expect(parseClientMessage(draft({ upserts: [] })).ok).toBe(false);
    expect(parseClientMessage(draft({ upserts: [{ id: 'a', name: 'car' }] })).ok).toBe(false); // no box
    expect(parseClientMessage(draft({ upserts: [{ ...box('a'), bounding_box: { x: 1, y: 2, w: 'wide', h: 4 } }] })).ok).toBe(false);
    expect(parseClientMessage(draft({ pending: true })).ok).toBe(false);
    expect(parseClientMessage(draft({ image_id: 'x' })).ok).toBe(false);
    expect(parseClientMessage(draft({ base_version: -1 })).ok).toBe(false);
  });

  it(`takes at most ${LIVE_MAX_DRAFT_SHAPES} shapes, and the message within the byte cap`, () => {
    const many = Array.from({ length: LIVE_MAX_DRAFT_SHAPES }, (_, i) => box(`s${i}`));
    expect(parseClientMessage(draft({ upserts: many })).ok).toBe(true);
    expect(parseClientMessage(draft({ upserts: [...many, box('one-more')] })).ok).toBe(false);
    const big = parseClientMessage(draft({ upserts: [{ ...box('a'), note: 'x'.repeat(LIVE_MAX_MESSAGE_BYTES) }] }));
    expect(big).toMatchObject({ ok: false, tooLarge: true });
  });
});

describe('draft (server)', () => {
  it('names its author and is told apart from the other messages', () => {
    const m = LiveServerMessage.parse({ type: 'draft', image_id: IMAGE, user_id: 'u1', base_version: 3, upserts: [box('a')], removed_ids: [] });
    expect(m).toMatchObject({ type: 'draft', user_id: 'u1' });
    expect(LiveServerMessage.safeParse({ type: 'draft', image_id: IMAGE, base_version: 3, upserts: [], removed_ids: [] }).success).toBe(false);
  });
});
