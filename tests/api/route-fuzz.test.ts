// Bad input of any kind gets a clear 4xx and never a 500: every route of the OpenAPI document is
// called with bad path ids, bad query values and broken bodies (wrong types, NUL characters, lone
// surrogates, deep nesting, long strings and arrays), field by field from a body its schema
// describes. A fuzz of this kind found a NUL in the list's search, its class filter, sign-in's
// e-mail and segmentation's image_name answering 500 (the database refuses NUL as a parameter).
// A server of its own: it spends the per-address sign-in limits and deletes what it made.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, projectWithImage, startServer, type TestServer } from './harness';

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; items?: Schema; enum?: unknown[]; const?: unknown; anyOf?: Schema[]; oneOf?: Schema[]; allOf?: Schema[]; format?: string; minLength?: number; minItems?: number; minimum?: number };
interface Operation {
  parameters?: { in: string; name: string; required?: boolean; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

let server: TestServer;
let ids: { project: string; image: string; org: string; otherProject: string; otherImage: string };
let token: string;
let imageName: string;

beforeAll(async () => {
  server = await startServer({ SIGN_UPS_PER_HOUR: '100000' });
  const mine = await projectWithImage(server, { classes: [{ name: 'car', color: '#ff0000' }] });
  const other = await projectWithImage(server);
  token = mine.owner.token;
  imageName = mine.image.filename;
  ids = { project: mine.project.id, image: mine.image.id, org: mine.owner.org.id, otherProject: other.project.id, otherImage: other.image.id };
}, 120_000);
afterAll(() => server?.stop());

/** The id a parameter or field of this name most likely takes. */
function idFor(name: string): string {
  return /project/i.test(name) ? ids.project : /org/i.test(name) ? ids.org : ids.image;
}

/** A value of `schema`, as valid as a short walk can make it (enums, ids by field name, minimums). */
function sample(schema: Schema | undefined, key = '', depth = 0): unknown {
  if (!schema || depth > 6) return null;
  if (schema.enum) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return sample(union[0], key, depth + 1);
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((s) => sample(s, key, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'object') return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, s]) => [k, sample(s, k, depth + 1)]));
  if (type === 'array') return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => sample(schema.items, key, depth + 1));
  if (type === 'string') {
    if (schema.format === 'uuid' || /_id$|^id$/.test(key)) return idFor(key);
    if (/name$/.test(key)) return imageName;
    return 'a'.repeat(Math.max(1, schema.minLength ?? 1));
  }
  if (type === 'integer' || type === 'number') return schema.minimum ?? 1;
  if (type === 'boolean') return true;
  return 'a';
}

const BAD_VALUES: unknown[] = ['a\u0000b', '\ud800', {}, null, -1e308, 'x'.repeat(20_000), Array(5_000).fill(1)];
const BROKEN_BODIES: unknown[] = ['{"a":', `${'{"a":'.repeat(3_000)}1${'}'.repeat(3_000)}`, `${'['.repeat(20_000)}${']'.repeat(20_000)}`, null, [], 'a\u0000'];

/** Bodies that break `valid` one field at a time (and one field of its first list element). */
function brokenBodies(valid: unknown): unknown[] {
  const out = [...BROKEN_BODIES];
  if (!valid || typeof valid !== 'object' || Array.isArray(valid)) return out;
  const body = valid as Record<string, unknown>;
  out.push(body);
  for (const [key, value] of Object.entries(body)) {
    for (const bad of BAD_VALUES) out.push({ ...body, [key]: bad });
    const first = Array.isArray(value) ? value[0] : undefined;
    if (first && typeof first === 'object' && !Array.isArray(first)) {
      for (const inner of Object.keys(first)) for (const bad of ['a\u0000', {}, null]) out.push({ ...body, [key]: [{ ...first, [inner]: bad }] });
    } else if (Array.isArray(value)) out.push({ ...body, [key]: ['a\u0000'] });
  }
  return out;
}

describe('every route, called with bad input', () => {
  it('answers each call with a status under 500', async () => {
    const doc = (await api(server.url, 'GET', '/api/docs/json')).body as { paths: Record<string, Record<string, Operation>> };
    // What deletes or signs out goes last, so the rest still finds the project, image and session.
    const order = (path: string, method: string) => (/sign-?out|logout/.test(path) ? 3 : method === 'delete' ? 2 : method === 'get' ? 0 : 1);
    const operations = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })))
      .filter(({ method }) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .sort((a, b) => order(a.path, a.method) - order(b.path, b.method));
    expect(operations.length).toBeGreaterThan(100);

    const failures: string[] = [];
    let calls = 0;
    const call = async (method: string, path: string, body?: unknown) => {
      calls++;
      const res = await api(server.url, method.toUpperCase(), path, { token, body });
      if (res.status >= 500) failures.push(`${res.status} ${method.toUpperCase()} ${path.slice(0, 120)} ${JSON.stringify(body)?.slice(0, 120) ?? ''}`);
    };
    for (const { path, method, op } of operations) {
      const params = op.parameters ?? [];
      const fill = (over: Record<string, string> = {}) => path.replace(/\{(\w+)\}/g, (_, name: string) => over[name] ?? idFor(name));
      const required = params.filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=${encodeURIComponent(String(sample(p.schema, p.name)))}`);
      for (const p of params.filter((q) => q.in === 'path')) for (const bad of ['x', '%00', ids.otherProject, ids.otherImage]) await call(method, fill({ [p.name]: bad }));
      for (const q of params.filter((p) => p.in === 'query')) {
        for (const bad of ['%00', 'x', '-1', '99999999999999999999', 'x'.repeat(5_000)]) {
          await call(method, `${fill()}?${[...required.filter((r) => !r.startsWith(`${q.name}=`)), `${q.name}=${bad}`].join('&')}`);
        }
      }
      const schema = op.requestBody?.content?.['application/json']?.schema;
      if (schema) for (const body of brokenBodies(sample(schema))) await call(method, `${fill()}${required.length ? `?${required.join('&')}` : ''}`, body);
    }
    expect(calls).toBeGreaterThan(1_000);
    expect(failures).toEqual([]);
  }, 300_000);
});
