// What the Data tab's tiles and search read from GET /projects/{id}/images: each image's annotation
// count as the saves left it (the stored counter, no count per request), its pixel size, and the
// name search across every folder (no folder_path) combined with the status filter, paged and
// counted. Another organization's project answers 404 whatever the search.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';

let server: TestServer;
let owner: Member;
let stranger: Member;
let project: { id: string };
const byName: Record<string, { id: string; filename: string }> = {};

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  stranger = await onboardedUser(server);
  project = await createProject(server, owner);
  const classes = await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes: [{ name: 'bird', type: 'box', color: '#F07575' }] } });
  if (classes.status !== 200) throw new Error(JSON.stringify(classes.body));
  for (const [name, parent] of [['birds', '/'], ['gulls', '/birds']] as const) {
    const res = await api(server.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: project.id, name, parent_folder_path: parent } });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  }
  const files: [string, number, number, string][] = [
    ['heron-01.png', 64, 48, '/'],
    ['heron-02.png', 40, 30, '/birds'],
    ['gull_heron.png', 20, 50, '/birds/gulls'],
    ['owl.png', 33, 21, '/birds'],
  ];
  for (const [name, w, h, folder] of files) byName[name] = await uploadImage(server, owner, project.id, name, await png(w, h), { folder });
}, 120_000);

const list = (query: string, token = owner.token, projectId = project.id) => api(server.url, 'GET', `/api/v1/projects/${projectId}/images?${query}`, { token });
const box = (id: string) => ({ id, name: 'bird', bounding_box: { x: 1, y: 2, w: 12, h: 10 }, attributes: [] });
const save = (name: string, annotations: unknown[]) =>
  api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: { image_id: byName[name]!.id, project_id: project.id, image_filename: name, annotations } });
const counts = (body: { images: { filename: string; annotation_count: number }[] }) => Object.fromEntries(body.images.map((i) => [i.filename, i.annotation_count]));

describe('the images list for tiles', () => {
  it("gives each image its annotation count as the saves left it, and its pixel size", async () => {
    const first = await save('heron-01.png', [box('a'), box('b'), box('c')]);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect((await save('owl.png', [box('x')])).status).toBe(200);
    let all = await list('limit=100');
    expect(all.status).toBe(200);
    expect(counts(all.body)).toEqual({ 'heron-01.png': 3, 'heron-02.png': 0, 'gull_heron.png': 0, 'owl.png': 1 });
    // A later save that removes shapes lowers the count; the list follows it.
    expect((await save('heron-01.png', [box('a')])).status).toBe(200);
    all = await list('limit=100');
    expect(counts(all.body)['heron-01.png']).toBe(1);
    const sizes = Object.fromEntries(all.body.images.map((i: { filename: string; image_width: number; image_height: number }) => [i.filename, [i.image_width, i.image_height]]));
    expect(sizes).toEqual({ 'heron-01.png': [64, 48], 'heron-02.png': [40, 30], 'gull_heron.png': [20, 50], 'owl.png': [33, 21] });
    // The folder view reads the same numbers.
    const birds = await list('folder_path=/birds&sort_by=filename&sort_order=asc');
    expect(counts(birds.body)).toEqual({ 'heron-02.png': 0, 'owl.png': 1 });
    // Sorting by annotation count uses them.
    const sorted = await list('sort_by=annotation_count&sort_order=desc&limit=2');
    expect(sorted.body.images.map((i: { filename: string }) => i.filename)).toEqual(['heron-01.png', 'owl.png'].sort((a, b) => (byName[a]!.id < byName[b]!.id ? 1 : -1)));
  });

  it('searches file names in every folder without folder_path, case-insensitively, with the status filter, paged and counted', async () => {
    const names = (body: { images: { filename: string; virtual_folder_path: string }[] }) => body.images.map((i) => `${i.virtual_folder_path}:${i.filename}`).sort();
    const everywhere = await list('search=HERON&sort_by=filename&sort_order=asc');
    expect(everywhere.status).toBe(200);
    expect(names(everywhere.body)).toEqual(['/:heron-01.png', '/birds/gulls:gull_heron.png', '/birds:heron-02.png']);
    expect(everywhere.body.pagination).toMatchObject({ totalItems: 3, totalPages: 1, hasNext: false });
    // With folder_path the search stays in that folder.
    expect(names((await list('search=heron&folder_path=/birds')).body)).toEqual(['/birds:heron-02.png']);
    // Pages of a search count the matches only.
    const page1 = await list('search=heron&limit=2&page=1&sort_by=filename&sort_order=asc');
    const page2 = await list('search=heron&limit=2&page=2&sort_by=filename&sort_order=asc');
    expect(page1.body.pagination).toMatchObject({ totalItems: 3, totalPages: 2, hasNext: true });
    expect([...page1.body.images, ...page2.body.images].map((i: { filename: string }) => i.filename)).toEqual(['gull_heron.png', 'heron-01.png', 'heron-02.png']);
    // heron-01 has annotations, so its last save put it in annotating ('In Progress').
    const annotating = await list('search=heron&status=annotating');
    expect(names(annotating.body)).toEqual(['/:heron-01.png']);
    expect(annotating.body.pagination.totalItems).toBe(1);
    // Nothing matches: an empty page, not an error.
    const none = await list('search=pelican');
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ images: [], pagination: { totalItems: 0, hasNext: false } });
    // Archived images stay out of the Data view's search.
    expect((await api(server.url, 'PATCH', '/api/images/batch/update', { token: owner.token, body: { image_ids: [byName['heron-02.png']!.id], project_id: project.id, updates: { is_archived: true } } })).status).toBe(200);
    expect(names((await list('search=heron')).body)).toEqual(['/:heron-01.png', '/birds/gulls:gull_heron.png']);
    expect(names((await list('search=heron&is_archived=true')).body)).toEqual(['/birds:heron-02.png']);
  });

  it("answers 404 to a search in another organization's project", async () => {
    const res = await list('search=heron', stranger.token);
    expect(res.status).toBe(404);
    expect(JSON.stringify(res.body)).not.toContain('heron');
    expect((await list(`search=heron&org_id=${stranger.org.id}`)).status).toBe(404);
  });
});
