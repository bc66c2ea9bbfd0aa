// The images list's class filter checked against what a test knows of each image: for every class,
// archive filter ('false', 'true', 'all') and folder (each folder an image is in, and none), the
// images listed and the total the list answers; the same for any of the classes at once; then the class panel's images_by_class
// (/annotations/stats, archived images left out). A one-class list takes its total from
// image_class_stats (0015_image_class_stats.sql), the stats too, so a count that missed a change
// shows here.
import { expect } from 'vitest';
import { api, type TestServer } from '../harness';

/** What the test knows of one image. */
export interface KnownImage {
  folder: string;
  archived: boolean;
  classes: string[];
}

export async function expectClassListsMatch(server: TestServer, token: string, projectId: string, known: Map<string, KnownImage>, classes: string[]) {
  const folders = [undefined, ...new Set([...known.values()].map((i) => i.folder))];
  for (const className of classes) {
    for (const archived of ['false', 'true', 'all'] as const) {
      for (const folder of folders) {
        const want = [...known.entries()]
          .filter(([, i]) => i.classes.includes(className) && (archived === 'all' || i.archived === (archived === 'true')) && (folder === undefined || i.folder === folder))
          .map(([name]) => name)
          .sort();
        const q = new URLSearchParams({ class: className, is_archived: archived, limit: '100', ...(folder !== undefined && { folder_path: folder }) });
        const res = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?${q}`, { token });
        const what = `class ${className}, archived ${archived}, folder ${folder ?? '(any)'}`;
        expect(res.status, what).toBe(200);
        expect((res.body.images as { filename: string }[]).map((i) => i.filename).sort(), what).toEqual(want);
        expect(res.body.pagination.totalItems, `${what}: the total`).toBe(want.length);
      }
    }
  }
  // Any of the classes: that total is a count of the image rows' class lists.
  for (const archived of ['false', 'true', 'all'] as const) {
    const want = [...known.entries()].filter(([, i]) => i.classes.some((c) => classes.includes(c)) && (archived === 'all' || i.archived === (archived === 'true'))).map(([name]) => name);
    const q = new URLSearchParams([...classes.map((c) => ['class', c]), ['is_archived', archived], ['limit', '100']]);
    const res = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?${q}`, { token });
    expect((res.body.images as { filename: string }[]).map((i) => i.filename).sort(), `any of the classes, archived ${archived}`).toEqual(want.sort());
    expect(res.body.pagination.totalItems, `any of the classes, archived ${archived}: the total`).toBe(want.length);
  }
  const stats = await api(server.url, 'GET', `/api/v1/annotations/stats/${projectId}`, { token });
  expect(stats.status).toBe(200);
  const byClass: Record<string, number> = {};
  for (const i of known.values()) if (!i.archived) for (const c of i.classes) byClass[c] = (byClass[c] ?? 0) + 1;
  expect(stats.body.images_by_class, 'the class panel: images per class, archived ones left out').toEqual(byClass);
}
