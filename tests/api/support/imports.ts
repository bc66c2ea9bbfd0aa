// Dataset imports through the API, as a client does them: reserve, PUT, start, poll to the end.
import JSZip from 'jszip';
import { expect } from 'vitest';
import { api, type TestServer } from '../harness';
import { png } from '../../fixtures/datasets';
import type { ImportReport } from '../../../src/contract/imports';

export type { ImportReport };
export type ImportJob = { import_id: string; status: string; format: string; progress: { done: number; total: number }; report: ImportReport; error?: string };

/** Reserve, PUT and start; returns the import id. */
export async function startImport(server: TestServer, token: string, projectId: string, filename: string, bytes: Buffer, body: Record<string, unknown> = {}): Promise<string> {
  const res = await api(server.url, 'POST', `/api/v1/projects/${projectId}/imports`, { token, body: { filename, size: bytes.length, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const put = await fetch(res.body.upload_url, { method: 'PUT', headers: { 'content-type': res.body.content_type }, body: new Uint8Array(bytes) });
  expect(put.status).toBe(200);
  const started = await api(server.url, 'POST', `/api/v1/imports/${res.body.import_id}/start`, { token });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  expect(started.body.status).toBe('queued');
  return res.body.import_id as string;
}

/** Polls the import until it has ended (`seconds`, 30 by default, at most: a guard against a hang, not a timing goal). */
export async function finishedImport(server: TestServer, token: string, id: string, seconds = 30): Promise<ImportJob> {
  for (let i = 0; i < seconds * 10; i++) {
    const res = await api<ImportJob>(server.url, 'GET', `/api/v1/imports/${id}`, { token });
    expect(res.status).toBe(200);
    if (res.body.status === 'done' || res.body.status === 'failed' || res.body.status === 'cancelled') return res.body;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the import did not finish in ${seconds} s`);
}

/** The whole import of one file; resolves with the finished job. */
export async function importFile(server: TestServer, token: string, projectId: string, filename: string, bytes: Buffer, body: Record<string, unknown> = {}, seconds = 30): Promise<ImportJob> {
  return finishedImport(server, token, await startImport(server, token, projectId, filename, bytes, body), seconds);
}

/** A YOLO zip of `n` 32x24 images (f00.png, f01.png ...), one box of class car each. */
export async function yoloZip(n: number): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('data.yaml', 'names:\n  - car\n');
  const image = await png(32, 24);
  for (let i = 0; i < n; i++) {
    const name = `f${String(i).padStart(2, '0')}`;
    zip.file(`images/${name}.png`, image);
    zip.file(`labels/${name}.txt`, '0 0.5 0.5 0.2 0.2\n');
  }
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/** The project's images (up to 100), as the list answers them. */
export async function imagesOf(server: TestServer, token: string, projectId: string) {
  const res = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?page_size=100`, { token });
  expect(res.status).toBe(200);
  return res.body.images as { filename: string; annotation_count: number }[];
}

/** Checks every 50 ms until `check` holds (`tries` times at most: a guard against a hang, not a timing goal). */
export async function until(what: string, check: () => Promise<boolean> | boolean, tries = 600): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`gave up waiting: ${what}`);
}
