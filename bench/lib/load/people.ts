// What the team does, call by call as the app makes them (src/app/api/client.ts,
// src/app/pages/annotate/api.ts and preload.ts, src/app/pages/project/data/useImageList.ts,
// thumbnails.ts, uploads.ts, ExportDialog.tsx), one request at a time per person.
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { decodeBlock, type ColumnBlock } from '../../../src/contract/annotation-columns';
import { assertLoopback, json, type Answer, type LoadClient } from './http';

/** The project the team works in, as seeding made it. */
export interface World {
  url: string;
  orgId: string;
  projectId: string;
  /** Folders of seeded, annotated images ('/street-1', ...). */
  folders: string[];
  classes: string[];
  /** Images several people open (review): 1 open in 10 picks one of them, so saves meet 409s. */
  shared: ImageRef[];
  /** PNGs the uploaders send. */
  pngs: { bytes: Buffer; width: number; height: number }[];
}

export interface ImageRef {
  id: string;
  filename: string;
  virtual_folder_path: string;
}

type Shape = Record<string, unknown> & { id: string; bounding_box: { x: number; y: number; w: number; h: number } };

/** A seeded pseudo-random stream per person, so runs are alike. */
export function random(seed: number): () => number {
  let s = seed % 2147483647 || 1;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

const r1 = (v: number) => Math.round(v * 10) / 10;

/** A box, or an 8-vertex polygon with its box, on a 640 x 480 image. */
export function newShape(rnd: () => number, classes: string[]): Shape {
  const w = 20 + rnd() * 80, h = 20 + rnd() * 80;
  const x = rnd() * (640 - w), y = rnd() * (480 - h);
  const s: Shape = { id: randomUUID(), name: classes[Math.floor(rnd() * classes.length)], bounding_box: { x: r1(x), y: r1(y), w: r1(w), h: r1(h) }, attributes: [] };
  if (rnd() < 0.5) s.polygon = { path: Array.from({ length: 8 }, (_, k) => [r1(x + w / 2 + (w / 2) * Math.cos((k * Math.PI) / 4)), r1(y + h / 2 + (h / 2) * Math.sin((k * Math.PI) / 4))]) };
  return s;
}

/** The same shape nudged by dx (a drag of a few pixels). */
function nudged(s: Shape, dx: number): Shape {
  const b = s.bounding_box;
  const x = Math.min(Math.max(0, b.x + dx), 640 - b.w);
  const moved: Shape = { ...s, bounding_box: { ...b, x: r1(x) } };
  if (s.polygon) moved.polygon = { path: (s.polygon as { path: number[][] }).path.map(([px, py]) => [r1(px! + (x - b.x)), py!]) };
  return moved;
}

export interface Clock {
  /** The run's end (performance.now()); people stop starting new steps after it. */
  until: number;
  /** False for the single-user baseline: no waiting between calls. */
  think: boolean;
  stopped: boolean;
}

const enc = encodeURIComponent;

abstract class Person {
  constructor(
    protected readonly client: LoadClient,
    protected readonly world: World,
    protected readonly token: string,
    protected readonly rnd: () => number,
    protected readonly clock: Clock,
  ) {}

  protected get running(): boolean {
    return !this.clock.stopped && performance.now() < this.clock.until;
  }

  /** Waits min..max ms (not in the baseline); false when the run ended meanwhile. */
  protected async pause(min: number, max: number): Promise<boolean> {
    if (!this.clock.think) return true;
    const ms = min + this.rnd() * (max - min);
    const left = this.clock.until - performance.now();
    await new Promise((r) => setTimeout(r, Math.max(0, Math.min(ms, left))));
    return this.running;
  }

  protected api(method: string, path: string, opts: Parameters<LoadClient['send']>[2] = {}): Promise<Answer> {
    return this.client.send(method, `${this.world.url}${path.startsWith('/api/') ? path : `/api/v1${path}`}`, { token: this.token, ...opts });
  }

  /** The Data tab's page of a folder (useImageList): 200 first, 50 for each 'more'. */
  protected async listPage(folder: string, page: number, limit: number, label: string): Promise<{ images: ImageRef[]; hasNext: boolean }> {
    const q = new URLSearchParams({ org_id: this.world.orgId, folder_path: folder, page: String(page), limit: String(limit), sort_by: 'created_at', sort_order: 'desc', is_archived: 'false' });
    const res = await this.api('GET', `/projects/${enc(this.world.projectId)}/images?${q}`, { label: `GET /api/v1/projects/:id/images (${label})` });
    if (res.status !== 200) return { images: [], hasNext: false };
    const body = json<{ images: ImageRef[]; pagination: { hasNext: boolean } }>(res);
    return { images: body.images, hasNext: body.pagination.hasNext };
  }
}

interface OpenImage {
  ref: ImageRef;
  shapes: Shape[];
  version: number;
}

export interface AnnotatorStats {
  saves: number;
  conflicts: number;
  /** 409s on the shared images. */
  conflictsShared: number;
  givenUp: number;
  opens: number;
}

/**
 * An annotator: the Data tab of a folder (first page, sometimes 'more', thumbnail URLs), then the
 * editor on one of its images (the image, the folder sequence, load-data in the column encoding,
 * the original's signed URL and bytes, the neighbours prefetched), a small change saved every 2 s
 * (save-changes on base_version, rebased and sent again on a 409 as the save manager does; a new
 * shape now and then, with its usage record), and after 5-15 saves the next image or another folder.
 */
export class Annotator extends Person {
  readonly stats: AnnotatorStats = { saves: 0, conflicts: 0, conflictsShared: 0, givenUp: 0, opens: 0 };
  /** preload.ts: pixels of the last 4 images, annotations fresh for 30 s. */
  private pixels: string[] = [];
  private data = new Map<string, { at: number; doc: { shapes: Shape[]; version: number } }>();
  /** The editor's folder sequence (react-query, stale after 60 s). */
  private sequences = new Map<string, { at: number; images: ImageRef[] }>();
  /** Thumbnail URLs cached in the browser (2 h). */
  private thumbs = new Set<string>();

  /** The baseline makes every call each round: nothing cached. */
  forget(): void {
    this.pixels = [];
    this.data.clear();
    this.sequences.clear();
    this.thumbs.clear();
  }

  async dataTab(folder: string, more = this.rnd() < 0.3): Promise<ImageRef[]> {
    const first = await this.listPage(folder, 1, 200, 'Data tab, page of 200');
    let images = first.images;
    if (more && first.hasNext) images = images.concat((await this.listPage(folder, Math.floor(images.length / 50) + 1, 50, 'Data tab, page of 50')).images);
    // thumbnails.ts: signed URLs in batches of 50, the first 20 at once.
    const missing = images.filter((i) => !this.thumbs.has(i.id)).map((i) => i.id);
    for (let i = 0; i < missing.length; ) {
      const n = i === 0 ? 20 : 50;
      const ids = missing.slice(i, i + n);
      const res = await this.api('POST', `/images/batch-signed-urls?org_id=${enc(this.world.orgId)}`, { json: { image_ids: ids, expiration_minutes: 60, variant: 'thumbnail' } });
      if (res.status === 200) for (const id of ids) this.thumbs.add(id);
      i += n;
    }
    return images;
  }

  private async loadData(ref: ImageRef): Promise<{ shapes: Shape[]; version: number } | null> {
    const res = await this.api('GET', `/annotations/load-data/${enc(ref.id)}?project_id=${enc(this.world.projectId)}&encoding=columns`);
    if (res.status !== 200) return null;
    const body = json<{ annotations: ColumnBlock[]; version: number }>(res);
    const doc = { shapes: body.annotations.flatMap(decodeBlock) as unknown as Shape[], version: body.version };
    this.data.set(ref.id, { at: performance.now(), doc });
    return doc;
  }

  private async loadPixels(ref: ImageRef): Promise<void> {
    if (this.pixels.includes(ref.id)) return;
    const res = await this.api('GET', `/images/${enc(ref.id)}/signed-url?org_id=${enc(this.world.orgId)}&variant=original&expiration_minutes=60`);
    if (res.status !== 200) return;
    const url = json<{ signed_url: string }>(res).signed_url;
    assertLoopback(url, 'signed URL');
    const got = await this.client.send('GET', url, { label: 'GET /storage/v1/object/:bucket/:key (original)' });
    if (got.status !== 200) return;
    this.pixels.push(ref.id);
    if (this.pixels.length > 4) this.pixels.shift();
  }

  private fresh(ref: ImageRef) {
    const d = this.data.get(ref.id);
    return d && performance.now() - d.at < 30_000 ? d.doc : null;
  }

  /** AnnotatePage + EditorScreen opening an image; null when it could not be loaded. */
  async open(ref: ImageRef): Promise<{ image: OpenImage; sequence: ImageRef[] } | null> {
    this.stats.opens += 1;
    await this.api('GET', `/images/${enc(ref.id)}?org_id=${enc(this.world.orgId)}`);
    const folder = ref.virtual_folder_path;
    let seq = this.sequences.get(folder);
    if (!seq || performance.now() - seq.at > 60_000) {
      const q = new URLSearchParams({ org_id: this.world.orgId, folder_path: folder, page: '1', limit: '10000', sort_by: 'created_at', sort_order: 'desc', is_archived: 'false' });
      const res = await this.api('GET', `/projects/${enc(this.world.projectId)}/images?${q}`, { label: 'GET /api/v1/projects/:id/images (editor sequence, limit 10000)' });
      seq = { at: performance.now(), images: res.status === 200 ? json<{ images: ImageRef[] }>(res).images : [] };
      this.sequences.set(folder, seq);
    }
    await this.loadPixels(ref);
    const doc = this.fresh(ref) ?? (await this.loadData(ref));
    this.data.delete(ref.id);
    if (!doc) return null;
    // Neighbours in the sequence, prefetched (preload.ts prefetchImage).
    const at = seq.images.findIndex((i) => i.id === ref.id);
    for (const n of [seq.images[at + 1], seq.images[at - 1]]) {
      if (!n || at < 0) continue;
      if (!this.fresh(n)) await this.loadData(n);
      await this.loadPixels(n);
    }
    return { image: { ref, shapes: [...doc.shapes], version: doc.version }, sequence: seq.images };
  }

  /** One change saved as the save manager does; false when it could not be saved. */
  async saveChange(img: OpenImage, create = this.rnd() < 0.2): Promise<boolean> {
    let upsert: Shape;
    const created = img.shapes.length === 0 || create;
    if (created) {
      upsert = newShape(this.rnd, this.world.classes);
    } else {
      upsert = nudged(img.shapes[Math.floor(this.rnd() * img.shapes.length)]!, this.rnd() < 0.5 ? -2 : 2);
    }
    for (let round = 0; round <= 5; round++) {
      const res = await this.api('POST', '/annotations/save-changes', {
        json: { image_id: img.ref.id, project_id: this.world.projectId, image_filename: img.ref.filename, base_version: img.version, upserts: [upsert], removed_ids: [] },
        expect409: true,
      });
      if (res.status === 200) {
        const i = img.shapes.findIndex((s) => s.id === upsert.id);
        if (i >= 0) img.shapes[i] = upsert;
        else img.shapes.push(upsert);
        img.version = json<{ version: number }>(res).version;
        this.stats.saves += 1;
        if (created) {
          // usage.ts: one record per creation action and kind of shape.
          await this.api('POST', '/usage/annotation', { json: { organization_id: this.world.orgId, project_id: this.world.projectId, image_id: img.ref.id, annotation_type: upsert.polygon ? 'polygon' : 'bbox', annotation_count: 1 } });
        }
        return true;
      }
      if (res.status !== 409) return false;
      // The server's document since our base: the changes the 409 carries (or the whole small document).
      this.stats.conflicts += 1;
      if (this.world.shared.some((s) => s.id === img.ref.id)) this.stats.conflictsShared += 1;
      const body = json<{ current?: { annotations: Shape[]; version: number }; changes?: { version: number; upserts: Shape[]; removed_ids: string[] } }>(res);
      if (body.changes) {
        const gone = new Set(body.changes.removed_ids);
        const theirs = new Map(body.changes.upserts.map((s) => [s.id, s]));
        img.shapes = img.shapes.filter((s) => !gone.has(s.id)).map((s) => theirs.get(s.id) ?? s);
        for (const s of body.changes.upserts) if (!img.shapes.some((x) => x.id === s.id)) img.shapes.push(s);
        img.version = body.changes.version;
      } else if (body.current) {
        img.shapes = body.current.annotations;
        img.version = body.current.version;
      } else return false;
    }
    this.stats.givenUp += 1;
    return false;
  }

  /** The project page: the project and its folder tree. */
  async projectPage(): Promise<void> {
    await this.api('GET', `/projects/${enc(this.world.projectId)}`);
    await this.api('GET', `/api/folders/list/${enc(this.world.projectId)}?org_id=${enc(this.world.orgId)}`);
  }

  /** The loop of the load run. */
  async run(): Promise<void> {
    let folder = this.world.folders[Math.floor(this.rnd() * this.world.folders.length)]!;
    await this.projectPage();
    let list = await this.dataTab(folder);
    let next: ImageRef | undefined = list[Math.floor(this.rnd() * list.length)];
    while (this.running && next) {
      if (!(await this.pause(1000, 3000))) break;
      const ref = this.rnd() < 0.1 ? this.world.shared[Math.floor(this.rnd() * this.world.shared.length)]! : next;
      const opened = await this.open(ref);
      if (!opened) {
        next = list[Math.floor(this.rnd() * list.length)];
        continue;
      }
      const saves = 5 + Math.floor(this.rnd() * 11);
      for (let i = 0; i < saves && this.running; i++) {
        if (!(await this.pause(2000, 2000))) break;
        await this.saveChange(opened.image);
      }
      if (!this.running) break;
      if (this.rnd() < 0.7) {
        const seq = opened.sequence;
        const at = seq.findIndex((i) => i.id === opened.image.ref.id);
        // The next image in the sequence (from a shared image, or at the end, one of the folder's).
        next = (!this.world.shared.includes(opened.image.ref) && seq[at + 1]) || list[Math.floor(this.rnd() * list.length)];
      } else {
        folder = this.world.folders[Math.floor(this.rnd() * this.world.folders.length)]!;
        if (!(await this.pause(1000, 3000))) break;
        list = await this.dataTab(folder);
        next = list[Math.floor(this.rnd() * list.length)];
      }
    }
  }
}

export interface UploaderStats {
  uploads: number;
  exports: number;
  exportBytes: number;
}

/**
 * An uploader: files of 5-10 PNGs into their own folder (check-filename, upload-url, PUT to the
 * signed URL, register; the folder's list reloaded after each file as the Data tab does), then a
 * COCO export of one of the seeded folders, read to the end.
 */
export class Uploader extends Person {
  readonly stats: UploaderStats = { uploads: 0, exports: 0, exportBytes: 0 };
  private n = 0;

  constructor(client: LoadClient, world: World, token: string, rnd: () => number, clock: Clock, private readonly folder: string, private readonly prefix: string) {
    super(client, world, token, rnd, clock);
  }

  async uploadOne(): Promise<boolean> {
    const png = this.world.pngs[this.n % this.world.pngs.length]!;
    const name = `${this.prefix}-${(this.n += 1)}.png`;
    const pid = enc(this.world.projectId), org = enc(this.world.orgId);
    const check = await this.api('POST', `/projects/${pid}/images/check-filename?org_id=${org}`, { json: { filename: name } });
    const filename = check.status === 200 ? json<{ unique_filename: string }>(check).unique_filename : name;
    const target = await this.api('POST', `/projects/${pid}/images/upload-url?org_id=${org}`, { json: { filename, content_type: 'image/png', folder_path: this.folder, expiration_minutes: 15 } });
    if (target.status !== 200) return false;
    const t = json<{ upload_url: string; filename: string; gcs_bucket: string; gcs_path: string; gcs_uri: string }>(target);
    assertLoopback(t.upload_url, 'signed upload URL');
    const put = await this.client.send('PUT', t.upload_url, { bytes: png.bytes, contentType: 'image/png' });
    if (put.status !== 200) return false;
    const reg = await this.api('POST', `/projects/${pid}/images/register?org_id=${org}`, {
      json: { filename: t.filename, gcs_bucket: t.gcs_bucket, gcs_path: t.gcs_path, gcs_uri: t.gcs_uri, folder_path: this.folder, file_size: png.bytes.length, mime_type: 'image/png', width: png.width, height: png.height },
    });
    if (reg.status !== 200) return false;
    this.stats.uploads += 1;
    return true;
  }

  /** ExportDialog: COCO, the current folder's images, no image files; the zip read to the last byte. */
  async exportFolder(folder: string): Promise<void> {
    const res = await this.api('POST', '/annotations/export', {
      json: { project_id: this.world.projectId, scope: 'current_filters', format: 'coco', include_images: false, name: `export ${this.prefix}`, class_filter: null, filters: { folder_path: folder } },
      timeoutMs: 120_000,
    });
    if (res.status === 200) {
      this.stats.exports += 1;
      this.stats.exportBytes += res.body.length;
    }
  }

  async refreshList(): Promise<void> {
    await this.listPage(this.folder, 1, 200, 'Data tab, page of 200');
  }

  async run(): Promise<void> {
    while (this.running) {
      const files = 5 + Math.floor(this.rnd() * 6);
      for (let i = 0; i < files && this.running; i++) {
        await this.uploadOne();
        await this.refreshList();
        if (!(await this.pause(500, 1500))) return;
      }
      if (!this.running) return;
      await this.exportFolder(this.world.folders[Math.floor(this.rnd() * this.world.folders.length)]!);
      if (!(await this.pause(2000, 5000))) return;
    }
  }
}
