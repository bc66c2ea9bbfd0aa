// Dataset imports through the API, as a client does them: reserve, PUT, start, poll to the end.
import { expect } from 'vitest';
import { api, type TestServer } from '../harness';

export type ImportReport = { images_created: number; images_matched: number; annotations_created: number; classes_created: string[]; skipped: { file: string; reason: string }[]; warnings: string[] };
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
