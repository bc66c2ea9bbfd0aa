// The image's sequence as the editor's Previous / Next follow it: the list asked of the server is
// the Data view's (its folder, or every folder with a filter that looks everywhere, its stage,
// assignee and class filters, its sort), previous and next are the image's neighbours in that
// list, and they are loaded ahead once the image is up.
import { describe, expect, it } from 'vitest';
import type { Image } from '../../contract/images';
import { Editor } from '../../engine';
import { parseDataQuery } from '../lib/links';
import { PREFETCH_DELAY_MS, prefetchNeighbours, sequenceOf, sequencePlace, sequenceRequest } from './sequence';
import { fakeClock } from '../../../tests/support/saveTestkit';

const img = (name: string) => ({ id: `id-${name}`, filename: `${name}.png` }) as Image;
const [a, b, c] = [img('a'), img('b'), img('c')];
const view = (search: string) => ({ ...parseDataQuery(new URLSearchParams(search)) });

describe('the sequence asked for', () => {
  it("follows the view's folder, stage and sort", () => {
    const { params } = sequenceRequest({ ...view('stage=review&sort=filename&order=asc'), folderPath: '/birds' }, 'org-1');
    expect(params).toMatchObject({ org_id: 'org-1', folder_path: '/birds', status: 'review', sort_by: 'filename', sort_order: 'asc', is_archived: 'false' });
    expect(params.class).toBeUndefined();
  });

  it("follows the view's class and count filters through every folder", () => {
    const { params, key } = sequenceRequest({ ...view('class=heron&class=egret&annotated=yes&min_annotations=2'), folderPath: '/birds' }, 'org-1');
    expect(params.folder_path).toBeUndefined();
    expect(params).toMatchObject({ class: ['heron', 'egret'], has_annotations: 'true', min_annotations: 2 });
    // Another filter is another list (the query key holds the filters).
    expect(sequenceRequest({ ...view('class=heron'), folderPath: '/birds' }, 'org-1').key).not.toEqual(key);
  });

  it('a name search or an assignee looks in every folder too', () => {
    expect(sequenceRequest({ ...view('q=gull'), folderPath: '/birds' }, 'org-1').params).toMatchObject({ search: 'gull', folder_path: undefined });
    expect(sequenceRequest({ ...view('assignee=me'), folderPath: '/birds' }, 'org-1').params).toMatchObject({ assignee: 'me', folder_path: undefined });
  });

  it('an image the view no longer lists is shown alone', () => {
    expect(sequenceOf([a, c], b)).toBeUndefined();
    expect(sequenceOf([a, b, c], b)).toEqual([a, b, c]);
    expect(sequenceOf(undefined, b)).toBeUndefined();
  });
});

describe('previous and next', () => {
  it("are the image's neighbours in the list, none past its ends", () => {
    expect(sequencePlace([a, b, c], b.id)).toEqual({ index: 1, previous: a, next: c });
    expect(sequencePlace([a, b, c], a.id)).toEqual({ index: 0, previous: null, next: b });
    expect(sequencePlace([a, b, c], c.id)).toEqual({ index: 2, previous: b, next: null });
    expect(sequencePlace(undefined, b.id)).toEqual({ index: -1, previous: null, next: null });
  });

  it('are loaded ahead once the image is up, next first, and opened in the renderer', async () => {
    const clock = fakeClock();
    const asked: string[] = [];
    const opened: string[] = [];
    const stop = prefetchNeighbours({
      editor: new Editor(),
      orgId: 'org-1',
      projectId: 'p-1',
      neighbours: [c, null, a],
      prefetch: async (n) => (asked.push(n.filename), { source: n.filename as never, width: 10, height: 20 }),
      preload: (_e, key, source, size) => opened.push(`${key} ${String(source)} ${size.width}x${size.height}`),
      timers: clock,
    });
    await clock.advance(PREFETCH_DELAY_MS - 1);
    expect(asked).toEqual([]);
    await clock.advance(1);
    await Promise.resolve();
    expect(asked).toEqual(['c.png', 'a.png']);
    expect(opened).toEqual(['id-c c.png 10x20', 'id-a a.png 10x20']);
    stop();
  });

  it('moving on before they arrive opens nothing in the renderer', async () => {
    const clock = fakeClock();
    const opened: string[] = [];
    let arrive: () => void = () => undefined;
    const stop = prefetchNeighbours({
      editor: new Editor(),
      orgId: 'org-1',
      projectId: 'p-1',
      neighbours: [c],
      prefetch: () => new Promise((resolve) => (arrive = () => resolve({ source: 'c' as never, width: 1, height: 1 }))),
      preload: (_e, key) => opened.push(key),
      timers: clock,
    });
    await clock.advance(PREFETCH_DELAY_MS);
    stop();
    arrive();
    await Promise.resolve();
    expect(opened).toEqual([]);
    // Stopped before the delay: nothing is even asked for.
    const asked: string[] = [];
    prefetchNeighbours({ editor: new Editor(), orgId: 'o', projectId: 'p', neighbours: [a], prefetch: async (n) => (asked.push(n.id), null), preload: () => undefined, timers: clock })();
    await clock.advance(PREFETCH_DELAY_MS * 2);
    expect(asked).toEqual([]);
  });
});
