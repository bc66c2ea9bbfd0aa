import { describe, expect, it } from 'vitest';
import { API_ERRORS, isApiErrorCode, statusOfCode } from './errors';

describe('API error codes', () => {
  it('each code is snake_case with an error status and a message', () => {
    for (const [code, { status, message }] of Object.entries(API_ERRORS)) {
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThan(600);
      expect(message.length, code).toBeGreaterThan(0);
    }
  });

  it('a client reads the status of a known code, and its fallback for an identity service code', () => {
    expect(statusOfCode('version_conflict')).toBe(409);
    expect(statusOfCode('payload_too_large')).toBe(413);
    expect(isApiErrorCode('over_email_send_rate_limit')).toBe(false);
    expect(statusOfCode('over_email_send_rate_limit', 429)).toBe(429);
    expect(isApiErrorCode('constructor')).toBe(false);
  });
});
