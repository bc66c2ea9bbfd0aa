// A person's own preferences (issue 37): the editor's single-key shortcuts, off or remapped, kept
// with the profile (so they follow the person to another device), a clash refused with a word why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signUp, startServer, type TestServer } from './harness';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

const DEFAULT_KEYS = { select: 'q', auto: 'm', box: 'r', polygon: 'p', polyline: 'l', keypoint: 'k', brush: 'b', eraser: 'e' };

describe('user preferences', () => {
  it('starts with the defaults, keeps a remap and shortcuts off for this person only', async () => {
    const ada = await signUp(server, { fullName: 'Ada' });
    const bob = await signUp(server, { fullName: 'Bob' });
    const first = await api(server.url, 'GET', '/api/v1/users/me/preferences', { token: ada.token });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ preferences: { editor_shortcuts: { enabled: true, tool_keys: DEFAULT_KEYS } } });

    const mine = { editor_shortcuts: { enabled: false, tool_keys: { ...DEFAULT_KEYS, box: 'g' } } };
    const put = await api(server.url, 'PUT', '/api/v1/users/me/preferences', { token: ada.token, body: mine });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ preferences: mine });
    // Read again (as another device would): kept; another person still has the defaults.
    expect((await api(server.url, 'GET', '/api/v1/users/me/preferences', { token: ada.token })).body).toEqual({ preferences: mine });
    expect((await api(server.url, 'GET', '/api/v1/users/me/preferences', { token: bob.token })).body.preferences.editor_shortcuts).toEqual({ enabled: true, tool_keys: DEFAULT_KEYS });
  });

  it('refuses a key another tool or a fixed shortcut has, and a key that is not one key', async () => {
    const ada = await signUp(server, { fullName: 'Ada' });
    const put = (tool_keys: Record<string, string>) => api(server.url, 'PUT', '/api/v1/users/me/preferences', { token: ada.token, body: { editor_shortcuts: { enabled: true, tool_keys } } });
    const taken = await put({ ...DEFAULT_KEYS, box: 'p' });
    expect(taken.status).toBe(400);
    expect(taken.body.error).toMatch(/P is already (Polygon|Bounding Box): choose another key for (Bounding Box|Polygon)/);
    const fixed = await put({ ...DEFAULT_KEYS, box: 'w' });
    expect(fixed.status).toBe(400);
    expect(fixed.body.error).toContain('W is already Pan the view');
    expect((await put({ ...DEFAULT_KEYS, box: 'gg' })).status).toBe(400);
    expect((await put({ ...DEFAULT_KEYS, box: ' ' })).status).toBe(400);
    expect((await put({ ...DEFAULT_KEYS, box: 'G' })).status).toBe(400);
    expect((await put({ ...DEFAULT_KEYS, lasso: 'z' })).status).toBe(400);
    // Nothing was stored.
    expect((await api(server.url, 'GET', '/api/v1/users/me/preferences', { token: ada.token })).body.preferences.editor_shortcuts.tool_keys).toEqual(DEFAULT_KEYS);
  });

  it('answers 401 without a token', async () => {
    expect((await api(server.url, 'GET', '/api/v1/users/me/preferences')).status).toBe(401);
  });
});
