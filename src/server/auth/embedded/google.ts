// "Sign in with Google" as plain OpenID Connect against a configurable issuer (GOOGLE_ISSUER), so
// tests and self-hosters can put any OpenID provider in Google's place. Our own PKCE, nonce and
// state protect the leg between us and the provider; supabase-js's PKCE protects the leg between
// the browser and us.
import * as oidc from 'openid-client';

export interface GoogleConfig {
  clientId: string;
  clientSecret: string;
  issuer: string;
}

export interface ProviderClaims {
  sub: string;
  email: string | null;
  emailVerified: boolean;
  /** Claims kept as the identity's data and copied into a new user's user_metadata. */
  data: Record<string, unknown>;
}

export class GoogleOidc {
  private configuration: Promise<oidc.Configuration> | null = null;

  constructor(
    private readonly cfg: GoogleConfig,
    readonly redirectUri: string,
  ) {}

  private discover(): Promise<oidc.Configuration> {
    if (!this.configuration) {
      const insecure = new URL(this.cfg.issuer).protocol === 'http:';
      this.configuration = oidc
        .discovery(new URL(this.cfg.issuer), this.cfg.clientId, this.cfg.clientSecret, undefined, {
          execute: insecure ? [oidc.allowInsecureRequests] : [],
          timeout: 10,
        })
        .catch((err: unknown) => {
          // Retry discovery on the next sign-in rather than caching a failure forever.
          this.configuration = null;
          throw err;
        });
    }
    return this.configuration;
  }

  async authorizationUrl(p: { state: string; nonce: string; codeVerifier: string; scopes?: string }): Promise<string> {
    const config = await this.discover();
    const scope = ['openid', 'email', 'profile', ...(p.scopes ?? '').split(/[\s,]+/).filter(Boolean)];
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      response_type: 'code',
      scope: [...new Set(scope)].join(' '),
      state: p.state,
      nonce: p.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(p.codeVerifier),
      code_challenge_method: 'S256',
    });
    return url.href;
  }

  /** Exchanges the code from the callback URL and verifies the ID token (signature, issuer, audience, nonce). */
  async exchange(callbackUrl: URL, p: { state: string; nonce: string; codeVerifier: string }): Promise<ProviderClaims> {
    const config = await this.discover();
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: p.codeVerifier,
      expectedNonce: p.nonce,
      expectedState: p.state,
      idTokenExpected: true,
    });
    const idClaims = tokens.claims();
    if (!idClaims) throw new Error('the provider returned no ID token');
    let claims: Record<string, unknown> = { ...idClaims };
    // Some providers keep email/profile out of the ID token; the userinfo endpoint has them.
    if (typeof claims.email !== 'string' && config.serverMetadata().userinfo_endpoint) {
      const info = await oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub);
      claims = { ...info, ...claims, email: info.email, email_verified: info.email_verified };
    }
    const email = typeof claims.email === 'string' && claims.email ? claims.email.toLowerCase() : null;
    const emailVerified = claims.email_verified === true || claims.email_verified === 'true';
    const name = typeof claims.name === 'string' ? claims.name : undefined;
    const picture = typeof claims.picture === 'string' ? claims.picture : undefined;
    // The same keys GoTrue stores for Google identities.
    const data: Record<string, unknown> = {
      iss: claims.iss,
      sub: idClaims.sub,
      provider_id: idClaims.sub,
      email: email ?? undefined,
      email_verified: emailVerified,
      phone_verified: false,
      name,
      full_name: name,
      picture,
      avatar_url: picture,
    };
    for (const key of Object.keys(data)) if (data[key] === undefined) delete data[key];
    return { sub: idClaims.sub, email, emailVerified, data };
  }
}
