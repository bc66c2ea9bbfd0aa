import { describe, expect, it } from 'vitest';
import { returnUrlAfterAuth } from './return-url';

describe('returnUrlAfterAuth', () => {
  it('keeps an invite link, so the person comes back to it after Google or the confirmation e-mail', () => {
    expect(returnUrlAfterAuth({ origin: 'https://v.example', pathname: '/invite/abc123' })).toBe('https://v.example/invite/abc123');
  });
  it('sends every other page back to the app root', () => {
    expect(returnUrlAfterAuth({ origin: 'https://v.example', pathname: '/' })).toBe('https://v.example');
    expect(returnUrlAfterAuth({ origin: 'https://v.example', pathname: '/project' })).toBe('https://v.example');
    expect(returnUrlAfterAuth({ origin: 'https://v.example', pathname: '/invite/a/b' })).toBe('https://v.example');
  });
});
