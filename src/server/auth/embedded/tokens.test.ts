// TokenSigner.verify keeps the tokens it verified (by their exact text) so a repeated request skips
// the HMAC; what it must not keep is a token's validity past its expiry or for any other text.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { JwtError, TokenSigner } from './tokens';

const claims = { sub: '00000000-0000-4000-8000-000000000001', email: 'a@example.com', phone: '', app_metadata: {}, user_metadata: {}, role: 'authenticated', aal: 'aal1', amr: [], session_id: '00000000-0000-4000-8000-000000000002', is_anonymous: false };

afterEach(() => vi.restoreAllMocks());

describe('TokenSigner.verify', () => {
  it('refuses a token verified before once its expiry has passed', async () => {
    const signer = new TokenSigner('a'.repeat(40), 'http://localhost/auth/v1');
    const now = Math.floor(Date.now() / 1000);
    const { token, expiresAt } = await signer.accessToken(claims, now);
    expect((await signer.verify(token)).sub).toBe(claims.sub);
    expect((await signer.verify(token)).sub).toBe(claims.sub); // the kept answer
    vi.spyOn(Date, 'now').mockReturnValue(expiresAt * 1000);
    await expect(signer.verify(token)).rejects.toThrow(JwtError);
    await expect(signer.verify(token)).rejects.toThrow('token is expired');
  });

  it('refuses a token that differs from a verified one, and one signed with another secret', async () => {
    const signer = new TokenSigner('a'.repeat(40), 'http://localhost/auth/v1');
    const { token } = await signer.accessToken(claims);
    await signer.verify(token);
    const [header, payload, signature] = token.split('.');
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: '00000000-0000-4000-8000-000000000003' })).toString('base64url')}.${signature}`;
    await expect(signer.verify(forged)).rejects.toThrow('signature is invalid');
    const flipped = `${header}.${payload}.${signature!.slice(0, -2)}${signature!.endsWith('AA') ? 'AB' : 'AA'}`;
    await expect(signer.verify(flipped)).rejects.toThrow(JwtError);
    const other = new TokenSigner('b'.repeat(40), 'http://localhost/auth/v1');
    await expect(other.verify(token)).rejects.toThrow('signature is invalid');
  });

  it('gives the claims frozen, so no caller changes what the next request is given', async () => {
    const signer = new TokenSigner('a'.repeat(40), 'http://localhost/auth/v1');
    const { token } = await signer.accessToken(claims);
    const first = await signer.verify(token);
    expect(Object.isFrozen(first)).toBe(true);
    expect(await signer.verify(token)).toBe(first);
  });
});
