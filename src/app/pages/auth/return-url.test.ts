import { describe, expect, it } from 'vitest';
import { returnUrlAfterAuth, withoutAuthParams } from './return-url';

const at = (pathname: string, search = '') => ({ origin: 'https://v.example', pathname, search });

describe('returnUrlAfterAuth', () => {
  it('keeps an invite link, so the person comes back to it after Google or the confirmation e-mail', () => {
    expect(returnUrlAfterAuth(at('/invite/abc123'))).toBe('https://v.example/invite/abc123');
  });
  it('keeps a link to a view with its query (issue 29: a link opened signed out comes back after sign-in)', () => {
    const link = '/projects/6f1c0d1e-52a4-4c53-9a5e-1b2f3c4d5e6f/images/0b7c1a6e-3f1d-4a8e-9c2b-7d6e5f4a3b2c';
    expect(returnUrlAfterAuth(at(link, '?folder=%2Fcats&sort=filename&order=asc'))).toBe(`https://v.example${link}?folder=%2Fcats&sort=filename&order=asc`);
    expect(returnUrlAfterAuth(at('/select'))).toBe('https://v.example/select');
  });
  it('sends the root to the origin', () => {
    expect(returnUrlAfterAuth(at('/'))).toBe('https://v.example');
  });
  it('leaves out what an earlier round trip through the identity service added', () => {
    expect(returnUrlAfterAuth(at('/projects/x/data', '?q=cat&error=access_denied&error_description=No'))).toBe('https://v.example/projects/x/data?q=cat');
    expect(returnUrlAfterAuth(at('/', '?code=abc'))).toBe('https://v.example');
  });
});

describe('withoutAuthParams', () => {
  it('drops only the identity service parameters', () => {
    expect(withoutAuthParams('?code=1&stage=new')).toBe('?stage=new');
    expect(withoutAuthParams('?error=x')).toBe('');
    expect(withoutAuthParams('')).toBe('');
  });
});
