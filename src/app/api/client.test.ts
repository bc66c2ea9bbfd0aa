import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiFetch, onApiRefusal } from './client';

describe('apiFetch', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('tells refusal listeners of 403 and 404 from the product API, passing the response on', async () => {
    const statuses: Record<string, number> = { '/api/v1/projects/p': 403, '/api/folders': 404, '/api/v1/images/i': 200, '/api/v1/users/me': 404 };
    vi.stubGlobal('fetch', async (url: string) => new Response('{}', { status: statuses[url]! }));
    const heard: number[] = [];
    const stop = onApiRefusal((s) => heard.push(s));
    const answered = [];
    for (const url of Object.keys(statuses)) answered.push((await apiFetch(url)).status);
    expect(answered).toEqual([403, 404, 200, 404]);
    // /users/me is how a change is read, so its own 404 does not set off another read.
    expect(heard).toEqual([403, 404]);
    stop();
    await apiFetch('/api/v1/projects/p');
    expect(heard).toEqual([403, 404]);
  });
});
