// A person's own preferences (issue 37): the editor's single-key shortcuts, off or remapped (the
// tools' keys and every other single key), kept with the profile (so they follow the person to
// another device), a clash refused with a word why.
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ACTION_KEYS } from '../../src/contract/preferences';
import { api, sharedServer, signUp, type TestServer } from './harness';

let server: TestServer;
beforeAll(async () => {
  server = await sharedServer();
});

const DEFAULT_KEYS = { select: 'q', auto: 'm', box: 'r', polygon: 'p', polyline: 'l', keypoint: 'k', brush: 'b', eraser: 'e' };

describe('user preferences', () => {
  it('starts with the defaults, keeps a remap and shortcuts off for this person only', async () => {
    const ada = await signUp(server, { fullName: 'Ada' });
    const bob = await signUp(server, { fullName: 'Bob' });
    const first = await api(server.url, 'GET', '/api/v1/users/me/preferences', { token: ada.token });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ preferences: { editor_shortcuts: { enabled: true, tool_keys: DEFAULT_KEYS, action_keys: DEFAULT_ACTION_KEYS } } });

    // A tool on Shift+G, Hide on J, Reject on Shift+T, class 1 on !, and H (Hide's old key) for the polygon.
    const mine = { editor_shortcuts: { enabled: false, tool_keys: { ...DEFAULT_KEYS, box: 'G', polygon: 'h' }, action_keys: { ...DEFAULT_ACTION_KEYS, hide: 'j', reject: 'T', class_1: '!' } } };
    const put = await api(server.url, 'PUT', '/api/v1/users/me/preferences', { token: ada.token, body: mine });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ preferences: mine });
    // Read again (as another device would): kept; another person still has the defaults.
    expect((await api(server.url, 'GET', '/api/v1/users/me/preferences', { token: ada.token })).body).toEqual({ preferences: mine });
    expect((await api(server.url, 'GET', '/api/v1/users/me/preferences', { token: bob.token })).body.preferences.editor_shortcuts).toEqual({ enabled: true, tool_keys: DEFAULT_KEYS, action_keys: DEFAULT_ACTION_KEYS });
    // A client that knows only the tools' keys: the other keys go back to the defaults.
    const older = await api(server.url, 'PUT', '/api/v1/users/me/preferences', { token: bob.token, body: { editor_shortcuts: { enabled: true, tool_keys: { ...DEFAULT_KEYS, box: 'g' } } } });
    expect(older.status).toBe(200);
    expect(older.body.preferences.editor_shortcuts).toEqual({ enabled: true, tool_keys: { ...DEFAULT_KEYS, box: 'g' }, action_keys: DEFAULT_ACTION_KEYS });
  });

  it('refuses a key another shortcut has (a tool or any other single key), and a key that is not one key', async () => {
    const ada = await signUp(server, { fullName: 'Ada' });
    const put = (tool_keys: Record<string, string>, action_keys: Record<string, string> = DEFAULT_ACTION_KEYS) =>
      api(server.url, 'PUT', '/api/v1/users/me/preferences', { token: ada.token, body: { editor_shortcuts: { enabled: true, tool_keys, action_keys } } });
    const taken = await put({ ...DEFAULT_KEYS, box: 'p' });
    expect(taken.status).toBe(400);
    expect(taken.body.error).toMatch(/P is already (Polygon|Bounding Box): choose another key for (Bounding Box|Polygon)/);
    const pan = await put({ ...DEFAULT_KEYS, box: 'w' });
    expect(pan.status).toBe(400);
    expect(pan.body.error).toMatch(/W is already (Pan up|Bounding Box): choose another key for (Bounding Box|Pan up)/);
    const other = await put(DEFAULT_KEYS, { ...DEFAULT_ACTION_KEYS, hide: 'q' });
    expect(other.status).toBe(400);
    expect(other.body.error).toContain('Q is already Select: choose another key for Hide');
    const shifted = await put(DEFAULT_KEYS, { ...DEFAULT_ACTION_KEYS, stage: 'R' });
    expect(shifted.status).toBe(400);
    expect(shifted.body.error).toContain('Shift+R is already');
    expect((await put({ ...DEFAULT_KEYS, box: 'gg' })).status).toBe(400);
    expect((await put({ ...DEFAULT_KEYS, box: ' ' })).status).toBe(400);
    expect((await put({ ...DEFAULT_KEYS, lasso: 'z' })).status).toBe(400);
    expect((await put(DEFAULT_KEYS, { ...DEFAULT_ACTION_KEYS, rotate: 'z' })).status).toBe(400);
    expect((await put(DEFAULT_KEYS, { ...DEFAULT_ACTION_KEYS, hide: '' })).status).toBe(400);
    // Nothing was stored.
    const stored = (await api(server.url, 'GET', '/api/v1/users/me/preferences', { token: ada.token })).body.preferences.editor_shortcuts;
    expect(stored).toEqual({ enabled: true, tool_keys: DEFAULT_KEYS, action_keys: DEFAULT_ACTION_KEYS });
  });

  it('answers 401 without a token', async () => {
    expect((await api(server.url, 'GET', '/api/v1/users/me/preferences')).status).toBe(401);
  });
});
