// Shared by the benchmarks that need a large project (dataset.bench.ts, export.bench.ts): command
// line options, a server on PGlite or PostgreSQL, and the bulk seeding of folders, images and
// annotation documents by INSERT ... SELECT FROM generate_series (100k images in seconds; the
// upload flow would take hours).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { api, onboardedUser, startServer, type TestServer } from '../../tests/api/harness';

export function arg(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

export function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export interface BenchServer {
  server: TestServer;
  user: Awaited<ReturnType<typeof onboardedUser>>;
  stop(): Promise<void>;
}

/**
 * A real server in this process with its own data directory and a signed-up, onboarded user.
 * Database: --pg <url> wins; else DATABASE_URL (as bench/run.ts and CI set it); else embedded
 * PGlite. On PostgreSQL the harness creates a throwaway database on that server.
 */
export async function benchServer(): Promise<BenchServer> {
  const pgUrl = arg('pg') ?? (process.env.DATABASE_URL || undefined);
  if (pgUrl) process.env.DATABASE_URL = pgUrl;
  else delete process.env.DATABASE_URL;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vellum-bench-'));
  const server = await startServer({}, dataDir);
  const user = await onboardedUser(server);
  return {
    server,
    user,
    stop: async () => {
      await server.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function createBenchProject(bench: BenchServer, name: string, classes?: { name: string; type: string; color: string }[]) {
  const { server, user } = bench;
  const created = await api(server.url, 'POST', '/api/v1/projects', { token: user.token, body: { organization_id: user.org.id, name } });
  if (created.status !== 200) throw new Error(`create project: ${created.status} ${JSON.stringify(created.body)}`);
  const project = created.body.project as { id: string; gcs_path: string };
  if (classes) {
    const res = await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: user.token, body: { classes } });
    if (res.status !== 200) throw new Error(`set classes: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return project;
}

export interface SeedSpec {
  images: number;
  folders: number;
  /**
   * 'mixed' (default): a third each of new / annotating / complete and 2% archived, as in a project
   * being worked on. 'complete': every image complete and not archived (an all_complete export).
   */
  statuses?: 'mixed' | 'complete';
  /** Shapes in each image's annotation document (boxes and 12-vertex polygons, alternating); 0 (default): empty documents. */
  shapes?: number;
  /** Storage key every image row points at (one stored object shared by all); default: a key per image, with no object behind it. */
  objectKey?: string;
}

/** The jsonb annotations of image number `g` (an SQL integer expression): `n` shapes spread over a 1920 x 1080 image. */
function annotationsSql(n: number, g: string): string {
  const classes = ['car', 'building', 'person', 'road', 'sign'];
  const shapes: string[] = [];
  for (let i = 0; i < n; i++) {
    const cx = `(160 + (${g} * ${37 + i * 6} + ${i * 211}) % 1600)`;
    const cy = `(120 + (${g} * ${53 + i * 4} + ${i * 97}) % 840)`;
    const r = `(20 + (${g} + ${i * 13}) % 100)`;
    const cls = classes[i % classes.length];
    const bbox = `jsonb_build_object('x', ${cx} - ${r}, 'y', ${cy} - ${r}, 'w', 2 * ${r}, 'h', 2 * ${r})`;
    const attributes = i === 0 ? `jsonb_build_array(jsonb_build_object('key', 'occluded', 'value', CASE WHEN ${g} % 3 = 0 THEN 'yes' ELSE 'no' END))` : `'[]'::jsonb`;
    const shape =
      i % 2 === 0
        ? `'bounding_box', ${bbox}`
        : `'bounding_box', ${bbox}, 'polygon', jsonb_build_object('path', (SELECT jsonb_agg(jsonb_build_array(
             round((${cx} + ${r} * (0.7 + 0.3 * ((k * 7 + ${g}) % 4) / 3.0) * cos(2 * pi() * k / 12))::numeric, 1),
             round((${cy} + ${r} * (0.7 + 0.3 * ((k * 7 + ${g}) % 4) / 3.0) * sin(2 * pi() * k / 12))::numeric, 1)) ORDER BY k)
             FROM generate_series(0, 11) k))`;
    shapes.push(`jsonb_build_object('id', '${i}-' || ${g}, 'name', '${cls}', ${shape}, 'attributes', ${attributes})`);
  }
  return n === 0 ? `'[]'::jsonb` : `jsonb_build_array(${shapes.join(',\n')})`;
}

/**
 * Fills a project by bulk INSERTs: folders f0000..f0099 at the root, the rest nested one level
 * below them ("f0003/s0042"); images 20% at the root, 20% in /f0000 (one large folder), the rest
 * spread over every other folder; one annotation document per image; the project's counters; then
 * VACUUM ANALYZE. Returns the seconds it took.
 */
export async function seedProject(bench: BenchServer, project: { id: string; gcs_path: string }, spec: SeedSpec): Promise<number> {
  const database = bench.server.built.ctx.database;
  const org = bench.user.org;
  const { images: IMAGES, folders: FOLDERS, statuses = 'mixed', shapes = 0 } = spec;
  const t0 = performance.now();
  const topLevel = Math.max(1, Math.min(100, FOLDERS));
  await database.exec(`
    INSERT INTO folders (id, project_id, name, full_path, parent_folder_path, parent_folder_id)
    SELECT gen_random_uuid(), '${project.id}', 'f' || lpad(g::text, 4, '0'), '/f' || lpad(g::text, 4, '0'), '/', NULL
    FROM generate_series(0, ${topLevel - 1}) g;
    INSERT INTO folders (id, project_id, name, full_path, parent_folder_path, parent_folder_id)
    SELECT gen_random_uuid(), '${project.id}', 's' || lpad(g::text, 4, '0'),
           p.full_path || '/s' || lpad(g::text, 4, '0'), p.full_path, p.id
    FROM generate_series(${topLevel}, ${FOLDERS - 1}) g
    JOIN folders p ON p.project_id = '${project.id}' AND p.full_path = '/f' || lpad((g % ${topLevel})::text, 4, '0');
  `);
  const key = spec.objectKey ? `'${spec.objectKey}'` : `'${project.gcs_path}/images/img_' || g`;
  const status = statuses === 'complete' ? `'complete'` : `(ARRAY['new','annotating','complete'])[1 + (g * 7) % 3]`;
  const archived = statuses === 'complete' ? 'false' : 'g % 50 = 7';
  const count = shapes > 0 ? String(shapes) : '(g * 13) % 50';
  await database.exec(`
    INSERT INTO images (id, project_id, organization_id, filename, gcs_uri, gcs_path, thumbnail_path, status, virtual_folder_path,
                        file_size, mime_type, image_width, image_height, annotation_count, is_archived, created_at, updated_at)
    SELECT gen_random_uuid(), '${project.id}', '${org.id}', 'img_' || lpad(g::text, 6, '0') || CASE WHEN g % 4 = 0 THEN '.jpg' ELSE '.png' END,
           'gs://${org.gcs_bucket_name}/' || ${key}, ${key},
           '${project.gcs_path}/thumbnails/img_' || g || '.webp',
           ${status},
           CASE WHEN g % 5 = 0 THEN '/' WHEN g % 5 = 1 OR cardinality(p.a) = 0 THEN '/f0000' ELSE p.a[1 + g % cardinality(p.a)] END,
           10000 + (g::bigint * 7919) % 5000000, CASE WHEN g % 4 = 0 THEN 'image/jpeg' ELSE 'image/png' END, 1920, 1080,
           ${count}, ${archived}, now() - make_interval(secs => ${IMAGES} - g), now() - make_interval(secs => (g * 31) % ${IMAGES})
    FROM generate_series(0, ${IMAGES - 1}) g
    CROSS JOIN (SELECT coalesce(array_agg(full_path ORDER BY full_path), '{}') AS a FROM folders WHERE project_id = '${project.id}' AND full_path <> '/f0000') p;
    INSERT INTO annotation_documents (image_id, project_id, annotations, version)
    SELECT id, project_id, ${shapes > 0 ? annotationsSql(shapes, 'n') : `'[]'::jsonb`}, ${shapes > 0 ? 1 : 0}
    FROM (SELECT id, project_id, substring(filename from 5 for 6)::int AS n FROM images WHERE project_id = '${project.id}') i;
    UPDATE projects SET
      image_count = (SELECT count(*) FROM images WHERE project_id = '${project.id}' AND NOT is_archived),
      archived_images = (SELECT count(*) FROM images WHERE project_id = '${project.id}' AND is_archived),
      completed_image_count = (SELECT count(*) FROM images WHERE project_id = '${project.id}' AND NOT is_archived AND status = 'complete'),
      total_size = (SELECT coalesce(sum(file_size), 0) FROM images WHERE project_id = '${project.id}'),
      annotation_count = (SELECT coalesce(sum(annotation_count), 0) FROM images WHERE project_id = '${project.id}')
    WHERE id = '${project.id}';
  `);
  // Separate statements: VACUUM cannot run inside the implicit transaction of a multi-statement query.
  await database.exec('VACUUM ANALYZE images');
  await database.exec('VACUUM ANALYZE folders');
  await database.exec('VACUUM ANALYZE annotation_documents');
  return (performance.now() - t0) / 1000;
}
