// Class attributes (issue 19) through the API: a class defines attributes (checkbox, select,
// number, text; CVAT's model), PATCH /projects refuses bad definitions, every save path refuses an
// annotation attribute that does not fit (400 naming it) and stores the ones that do, COCO and
// Vellum exports carry them, and both importers read them back.
import { beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';
import { importFile } from './support/imports';

let server: TestServer;
let owner: Member;
let project: { id: string };
let image: { id: string; filename: string };

const CAR = {
  name: 'car',
  type: 'box',
  color: '#F07575',
  attributes: [
    { name: 'colour', kind: 'select', options: ['red', 'blue'], default: 'red' },
    { name: 'occluded', kind: 'checkbox', default: false },
    { name: 'doors', kind: 'number' },
    { name: 'plate', kind: 'text', default: '' },
  ],
};
const TREE = { name: 'tree', type: 'polygon', color: '#ACF6E7' };
const box = { x: 2, y: 3, w: 10, h: 5 };

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  project = await createProject(server, owner, 'Attributes');
  expect((await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes: [CAR, TREE] } })).status).toBe(200);
  image = await uploadImage(server, owner, project.id, 'street.png', await png(40, 30));
}, 60_000);

const patchClasses = (classes: unknown[]) => api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes } });
const saveData = (annotations: unknown[]) =>
  api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: { image_id: image.id, project_id: project.id, image_filename: image.filename, annotations } });
const saveChanges = async (upserts: unknown[]) => {
  const { version } = (await api(server.url, 'GET', `/api/v1/annotations/load-data/${image.id}`, { token: owner.token })).body as { version: number };
  return api(server.url, 'POST', '/api/v1/annotations/save-changes', { token: owner.token, body: { image_id: image.id, project_id: project.id, image_filename: image.filename, base_version: version, upserts, removed_ids: [] } });
};
const load = async (imageId = image.id) => {
  const res = await api(server.url, 'GET', `/api/v1/annotations/load-data/${imageId}`, { token: owner.token });
  expect(res.status).toBe(200);
  return res.body.annotations as Record<string, any>[];
};

describe('attribute definitions on classes', () => {
  it('are stored with the class and returned', async () => {
    const res = await api(server.url, 'GET', `/api/v1/projects/${project.id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.project.classes).toEqual([{ ...CAR, tools: ['box'] }, { ...TREE, tools: ['polygon', 'mask'] }]);
  });

  it.each([
    ['an unknown kind', { name: 'a', kind: 'radio' }, /kind/i],
    ['a select without options', { name: 'size', kind: 'select', options: [] }, 'Attribute "size" is a select and needs at least one option'],
    ['a select with an option twice', { name: 'size', kind: 'select', options: ['s', 's'] }, 'Attribute "size" lists the option "s" twice'],
    ['a default that is not an option', { name: 'size', kind: 'select', options: ['s'], default: 'xl' }, 'Attribute "size": the default must be one of its options ("s")'],
    ['a number default that is text', { name: 'doors2', kind: 'number', default: 'four' }, 'Attribute "doors2": the default must be a number'],
    ['a checkbox default that is not a boolean', { name: 'parked', kind: 'checkbox', default: 'yes' }, 'Attribute "parked": the default must be true or false'],
    ['a blank name', { name: '  ', kind: 'text' }, 'Attribute name is required'],
    ['a name too long', { name: 'n'.repeat(101), kind: 'text' }, 'Attribute name must be at most 100 characters'],
    ['an attribute name used twice', { name: 'Colour', kind: 'text' }, 'Attribute names must be unique ("Colour" appears twice)'],
  ])('refuse %s with 400 and keep the classes as they were', async (_what, def, message) => {
    const res = await patchClasses([{ ...CAR, attributes: [...CAR.attributes, def] }, TREE]);
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(typeof res.body.code).toBe('string');
    if (typeof message === 'string') expect(res.body.error).toContain(message);
    else expect(res.body.error).toMatch(message);
    const after = await api(server.url, 'GET', `/api/v1/projects/${project.id}`, { token: owner.token });
    expect(after.body.project.classes).toEqual([{ ...CAR, tools: ['box'] }, { ...TREE, tools: ['polygon', 'mask'] }]);
  });
});

describe('saving annotations with attributes', () => {
  it.each([
    ['an option the select does not list', { name: 'colour', value: 'green' }, 'colour', 'Attribute "colour" of class "car" must be one of its options ("red", "blue")'],
    ['text in a number', { name: 'doors', value: 'four' }, 'doors', 'Attribute "doors" of class "car" must be a number'],
    ['a checkbox that is not a boolean', { name: 'occluded', value: 'yes' }, 'occluded', 'Attribute "occluded" of class "car" must be true or false'],
    ['a number in a text', { name: 'plate', value: 12 }, 'plate', 'Attribute "plate" of class "car" must be text'],
    ['an attribute the class does not define', { name: 'speed', value: 3 }, 'speed', 'Attribute "speed" is not defined for class "car"'],
  ])('refuses %s with 400 naming the attribute, on save-data, save-changes and batch-save-data', async (_what, entry, attribute, message) => {
    const annotation = { id: 'c1', name: 'car', bounding_box: box, attributes: [entry.name === 'colour' ? { name: 'doors', value: 2 } : { name: 'colour', value: 'red' }, entry] };
    for (const res of [await saveData([annotation]), await saveChanges([annotation])]) {
      expect(res.status).toBe(400);
      expect(res.body, JSON.stringify(res.body)).toMatchObject({ success: false, code: 'invalid_annotation', attribute, index: 0 });
      expect(res.body.error).toBe(`Annotation 0 (id "c1"): ${message}`);
    }
    const batch = await api(server.url, 'POST', '/api/v1/annotations/batch-save-data', {
      token: owner.token,
      body: { saves: [{ image_id: image.id, project_id: project.id, image_filename: image.filename, annotations: [annotation] }] },
    });
    expect(batch.status).toBe(200);
    expect(batch.body.results[0]).toMatchObject({ status: 'error', code: 'invalid_annotation' });
    expect(batch.body.results[0].error).toContain(message);
    expect(await load()).toEqual([]);
  });

  it('stores fitting values and gives them back; classes without definitions keep free-form attributes', async () => {
    const car = { id: 'c1', name: 'car', bounding_box: box, attributes: [{ name: 'colour', value: 'blue' }, { name: 'occluded', value: true }, { name: 'doors', value: 3 }, { name: 'plate', value: 'AB-12' }] };
    const tree = { id: 't1', name: 'tree', bounding_box: box, polygon: { path: [[2, 3], [12, 3], [12, 8]] }, attributes: ['free text', { key: 'x', value: 1 }] };
    const res = await saveData([car, tree]);
    expect(res.status).toBe(200);
    expect(await load()).toEqual([car, tree]);
    const changed = { ...car, attributes: [{ name: 'colour', value: 'red' }, { name: 'doors', value: null }] };
    expect((await saveChanges([changed])).status).toBe(200);
    expect((await load())[0]).toEqual(changed);
  });
});

describe('definitions changed after values were saved', () => {
  it('a value saved before its option was removed stays while unchanged (the shape still saves), a new value is checked', async () => {
    const car = { id: 'old', name: 'car', bounding_box: box, attributes: [{ name: 'colour', value: 'blue' }, { name: 'speed', value: 3 }] };
    // Saved while the class had no definitions (free-form), then the class gains them.
    expect((await patchClasses([{ ...CAR, attributes: undefined }, TREE])).status).toBe(200);
    expect((await saveData([car])).status).toBe(200);
    expect((await patchClasses([{ ...CAR, attributes: [{ name: 'colour', kind: 'select', options: ['red'] }] }, TREE])).status).toBe(200);
    try {
      // The outline moves, the attributes are as saved: accepted.
      const moved = { ...car, bounding_box: { ...box, x: 5 } };
      expect((await saveChanges([moved])).status).toBe(200);
      expect((await load())[0]).toEqual(moved);
      // A changed value is checked against today's definition.
      const changed = { ...moved, attributes: [{ name: 'colour', value: 'green' }, { name: 'speed', value: 3 }] };
      const res = await saveChanges([changed]);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'invalid_annotation', attribute: 'colour' });
      // So is a new shape carrying the old value.
      const copy = await saveChanges([{ ...car, id: 'copy' }]);
      expect(copy.status).toBe(400);
      expect(copy.body.error).toContain('Attribute "colour" of class "car" must be one of its options ("red")');
    } finally {
      expect((await patchClasses([CAR, TREE])).status).toBe(200);
      expect((await saveData([])).status).toBe(200);
    }
  });
});

async function exportZip(format: string): Promise<JSZip> {
  const res = await fetch(`${server.url}/api/v1/annotations/export`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: project.id, scope: 'current_filters', filters: {}, include_images: true, format }),
  });
  expect(res.status).toBe(200);
  return JSZip.loadAsync(Buffer.from(await res.arrayBuffer()));
}

describe('export and import', () => {
  const car = { id: 'c9', name: 'car', bounding_box: box, attributes: [{ name: 'colour', value: 'blue' }, { name: 'occluded', value: true }, { name: 'doors', value: 5 }, { name: 'plate', value: 'XY 9' }] };
  beforeAll(async () => {
    expect((await saveData([car])).status).toBe(200);
  });

  it('COCO carries them as a name -> value object per annotation, and the COCO importer reads them back', { timeout: 60_000 }, async () => {
    const zip = await exportZip('coco');
    const jsonPath = Object.keys(zip.files).find((p) => p.endsWith('.json') && !zip.files[p]!.dir)!;
    const coco = JSON.parse(await zip.file(jsonPath)!.async('string'));
    expect(coco.annotations).toHaveLength(1);
    expect(coco.annotations[0].attributes).toEqual({ colour: 'blue', occluded: true, doors: 5, plate: 'XY 9' });

    // Into a project whose car class has the same definitions: the values fit and are kept.
    const target = await createProject(server, owner);
    expect((await api(server.url, 'PATCH', `/api/v1/projects/${target.id}`, { token: owner.token, body: { classes: [CAR] } })).status).toBe(200);
    const job = await importFile(server, owner.token, target.id, 'Attributes_coco.zip', await zip.generateAsync({ type: 'nodebuffer' }), { format: 'coco' });
    expect(job.status, job.error).toBe('done');
    const imgs = await api(server.url, 'GET', `/api/v1/projects/${target.id}/images`, { token: owner.token });
    const [a] = await load(imgs.body.images[0].id);
    expect(a!.attributes).toEqual(car.attributes);

    // Into a project where "doors" is a select: the shape is kept, the value that does not fit is left out, with a warning.
    const strict = await createProject(server, owner);
    const selectDoors = { ...CAR, attributes: [...CAR.attributes.filter((d) => d.name !== 'doors'), { name: 'doors', kind: 'select', options: ['2', '4'] }] };
    expect((await api(server.url, 'PATCH', `/api/v1/projects/${strict.id}`, { token: owner.token, body: { classes: [selectDoors] } })).status).toBe(200);
    const job2 = await importFile(server, owner.token, strict.id, 'Attributes_coco.zip', await zip.generateAsync({ type: 'nodebuffer' }), { format: 'coco' });
    expect(job2.status, job2.error).toBe('done');
    expect(job2.report.warnings.join('\n')).toContain('attribute "doors" does not fit the definition of class "car"; left out');
    const imgs2 = await api(server.url, 'GET', `/api/v1/projects/${strict.id}/images`, { token: owner.token });
    const [b] = await load(imgs2.body.images[0].id);
    expect(b!.attributes).toEqual(car.attributes.filter((e) => e.name !== 'doors'));
  });

  it('Vellum carries the values and the definitions, and the Vellum importer makes the classes with them', { timeout: 60_000 }, async () => {
    const zip = await exportZip('vellum');
    const manifest = JSON.parse(await zip.file('vellum.json')!.async('string'));
    // The classes as the project stores them: with their tools (issue 33).
    expect(manifest.project.classes).toEqual([{ ...CAR, tools: ['box'] }, { ...TREE, tools: ['polygon', 'mask'] }]);
    const docPath = Object.keys(zip.files).find((p) => p.endsWith('street.png.json'))!;
    const doc = JSON.parse(await zip.file(docPath)!.async('string'));
    expect(doc.annotations).toEqual([car]);

    const target = await createProject(server, owner);
    const job = await importFile(server, owner.token, target.id, 'Attributes_vellum.zip', await zip.generateAsync({ type: 'nodebuffer' }), { format: 'vellum' });
    expect(job.status, job.error).toBe('done');
    const p = await api(server.url, 'GET', `/api/v1/projects/${target.id}`, { token: owner.token });
    expect(p.body.project.classes).toEqual([{ ...CAR, tools: ['box'] }, { ...TREE, tools: ['polygon', 'mask'] }]);
    const imgs = await api(server.url, 'GET', `/api/v1/projects/${target.id}/images`, { token: owner.token });
    expect(await load(imgs.body.images[0].id)).toEqual([car]);
  });
});
