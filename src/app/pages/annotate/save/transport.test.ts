// How server answers become save outcomes (what the manager retries, merges, or waits on).
import { describe, expect, it } from 'vitest';
import { outcomeOf } from './transport';

const body = (o: unknown) => JSON.stringify(o);

describe('outcomeOf', () => {
  it('turns a 409 version_conflict into a conflict carrying the current document', () => {
    const current = { annotations: [{ id: 'a' }], version: 4, saved_at: '2026-01-01T00:00:00.000Z' };
    expect(outcomeOf(409, body({ success: false, code: 'version_conflict', error: 'changed', current }))).toEqual({ kind: 'conflict', current });
  });
  it('retries 429 and 503 (and other 5xx), asks for sign-in on 401, and refuses 400, 403, 404, 413 with the server message', () => {
    expect(outcomeOf(429, body({ success: false, code: 'rate_limited', error: 'Too many requests, slow down' }))).toEqual({ kind: 'retry', status: 429, message: 'Too many requests, slow down' });
    expect(outcomeOf(503, 'Service Unavailable')).toMatchObject({ kind: 'retry', status: 503 });
    expect(outcomeOf(502, '')).toMatchObject({ kind: 'retry', status: 502 });
    expect(outcomeOf(401, body({ success: false, code: 'unauthorized', error: 'Invalid or expired token' }))).toEqual({ kind: 'auth', message: 'Invalid or expired token' });
    for (const status of [400, 403, 404, 413]) {
      expect(outcomeOf(status, body({ success: false, code: 'x', error: `message ${status}` }))).toEqual({ kind: 'refused', status, message: `message ${status}` });
    }
    // A 409 without the current document cannot be merged: refused, not looped on.
    expect(outcomeOf(409, body({ success: false, code: 'conflict', error: 'busy' }))).toMatchObject({ kind: 'refused', status: 409 });
  });
});
