import { describe, expect, it } from 'vitest';
import { isUniqueViolation, isUnstorableTextError, sqlState } from './errors';

describe('database errors by SQLSTATE', () => {
  it('reads the code on the driver error or down the cause chain (drizzle wraps the driver error)', () => {
    expect(sqlState({ code: '23505' })).toBe('23505');
    expect(sqlState(Object.assign(new Error('Failed query'), { cause: { code: '22021' } }))).toBe('22021');
    // Node's own codes are not SQLSTATEs.
    expect(sqlState(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBeUndefined();
    expect(sqlState(null)).toBeUndefined();
  });

  it('names a unique violation and text the database cannot take', () => {
    expect(isUniqueViolation({ cause: { code: '23505' } })).toBe(true);
    expect(isUniqueViolation({ code: '23503' })).toBe(false);
    expect(isUnstorableTextError({ cause: { code: '22021' } })).toBe(true);
    expect(isUnstorableTextError({ code: '22P05' })).toBe(true);
    expect(isUnstorableTextError({ code: '23505' })).toBe(false);
  });
});
