// Running an export: POST /annotations/export streams the zip, read here chunk by chunk so the
// dialog can show the bytes received, then saved as the file the server names. Before it starts,
// POST /annotations/export/count says how many images the same body would export. While it runs,
// GET /annotations/export/progress says how many images the server has written (useExportProgress).
import { useEffect, useState } from 'react';
import type { z } from 'zod';
import { ExportCountResponse, ExportProgressResponse, type ExportRequest } from '../../../../contract/export';
import { apiFetch, authHeaders, request } from '../../../api/client';

export const EXPORT_MESSAGES = {
  noSelection: 'Please select images to export',
  nothing: 'No images to export with the current selection',
} as const;

/** A refusal, worded for the dialog. */
export class ExportError extends Error {}

/** The server's message for a refused export: its validation texts as they are, others as 'Export failed: ...'. */
function refusal(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; code?: unknown };
    if (typeof parsed.error === 'string') {
      if (parsed.error === EXPORT_MESSAGES.noSelection || parsed.error === EXPORT_MESSAGES.nothing) return parsed.error;
      return `Export failed: ${parsed.error}`;
    }
  } catch {
    /* not JSON */
  }
  return `Export failed: ${status} ${body.slice(0, 300)}`;
}

/** File name from Content-Disposition (filename* first), else null. */
function dispositionName(header: string | null): string | null {
  if (!header) return null;
  const star = /filename\*=UTF-8''([^;]+)/i.exec(header);
  if (star) {
    try {
      return decodeURIComponent(star[1]!);
    } catch {
      /* fall through */
    }
  }
  return /filename="([^"]+)"/i.exec(header)?.[1] ?? null;
}

function save(blob: Blob, filename: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * Streams the export, reporting the bytes received, and saves it. Returns the file's name and size.
 * Throws ExportError with the server's words when it refuses.
 */
export async function downloadExport(body: z.input<typeof ExportRequest>, fallbackName: string, signal: AbortSignal, onBytes: (received: number) => void): Promise<{ filename: string; total: number }> {
  // The same request headers as the API client (src/app/api/client.ts), for a streamed body.
  const res = await apiFetch('/api/v1/annotations/export', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/zip, application/json', ...(await authHeaders()) },
    body: JSON.stringify(body),
    signal,
  });
  if (!res.ok) throw new ExportError(refusal(res.status, await res.text()));
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let total = 0;
  const reader = res.body?.getReader();
  if (reader) {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.byteLength;
      onBytes(total);
    }
  } else {
    const buf = new Uint8Array(await res.arrayBuffer());
    chunks.push(buf);
    total = buf.byteLength;
  }
  const filename = dispositionName(res.headers.get('content-disposition')) ?? fallbackName;
  save(new Blob(chunks, { type: 'application/zip' }), filename);
  return { filename, total };
}

/** How many images the export of `body` would hold (the server applies the same selection). */
export async function countExport(body: z.input<typeof ExportRequest>, signal: AbortSignal): Promise<number> {
  return (await request('POST', '/annotations/export/count', ExportCountResponse, body, { signal })).image_count;
}

const PROGRESS_POLL_MS = 500;

/**
 * Images written by the running export named `progressId` (null: none running), polled every
 * PROGRESS_POLL_MS; null until the server has answered about it (or when it cannot: another
 * server process, an old server), so the dialog then shows the bytes alone.
 */
export function useExportProgress(projectId: string, progressId: string | null): { written: number; total: number | null } | null {
  const [progress, setProgress] = useState<{ written: number; total: number | null } | null>(null);
  useEffect(() => {
    setProgress(null);
    if (!progressId) return;
    const controller = new AbortController();
    let timer: number | undefined;
    const poll = async () => {
      try {
        const q = new URLSearchParams({ project_id: projectId, progress_id: progressId });
        const p = await request('GET', `/annotations/export/progress?${q.toString()}`, ExportProgressResponse, undefined, { signal: controller.signal });
        if (!controller.signal.aborted && p.state !== 'unknown') setProgress({ written: p.images_written, total: p.image_count });
      } catch {
        /* progress is a nicety: the download goes on without it */
      }
      if (!controller.signal.aborted) timer = window.setTimeout(() => void poll(), PROGRESS_POLL_MS);
    };
    void poll();
    return () => {
      controller.abort();
      window.clearTimeout(timer);
    };
  }, [projectId, progressId]);
  return progress;
}
