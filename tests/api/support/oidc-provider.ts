// A local OpenID provider (oidc-provider) standing in for Google in tests: one confidential client,
// and an interaction that signs the configured test user in and grants consent without a page.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { exportJWK, generateKeyPair } from 'jose';

export interface TestAccount {
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
  picture?: string;
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The account the next sign-in logs in as; tests may swap it. */
  account: TestAccount;
  /** Count of successful code exchanges at the token endpoint. */
  tokenRequests: number;
  /** Registers the client's redirect URI. Separate from start-up because the relying party's
   * address is only known once it runs, and it needs our issuer URL to start. */
  configure(redirectUri: string): void;
  stop(): Promise<void>;
}

export async function startOidcProvider(opts: { account: TestAccount }): Promise<TestOidcProvider> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'vellum-test-client';
  const clientSecret = 'vellum-test-client-secret-0123456789abcdef';
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  let provider: Provider | null = null;
  let handle: ReturnType<Provider['callback']> | null = null;

  const state: TestOidcProvider = {
    issuer,
    clientId,
    clientSecret,
    account: opts.account,
    tokenRequests: 0,
    configure(redirectUri) {
      provider = new Provider(issuer, {
        clients: [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: [redirectUri],
            response_types: ['code'],
            grant_types: ['authorization_code'],
            token_endpoint_auth_method: 'client_secret_post',
          },
        ],
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'picture'] },
        findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ ...state.account, sub }) }),
        pkce: { required: () => true },
        features: { devInteractions: { enabled: false } },
        interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
        cookies: { keys: ['vellum-test-cookie-key'] },
        jwks: { keys: [signingKey] },
        ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 3600, Grant: 3600 },
      });
      provider.on('grant.success', () => {
        state.tokenRequests += 1;
      });
      handle = provider.callback();
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };

  server.on('request', (req, res) => {
    const op = provider;
    if (!op || !handle) {
      res.statusCode = 503;
      res.end('not configured');
      return;
    }
    if (!/^\/interaction\/[\w-]+/.test(req.url ?? '')) {
      void handle(req, res);
      return;
    }
    // Auto-login: what a person would do on Google's pages, in one step per prompt.
    void (async () => {
      try {
        const details = await op.interactionDetails(req, res);
        if (details.prompt.name === 'login') {
          await op.interactionFinished(req, res, { login: { accountId: state.account.sub } }, { mergeWithLastSubmission: false });
          return;
        }
        const grant = new op.Grant({ accountId: details.session!.accountId, clientId });
        grant.addOIDCScope('openid email profile');
        const grantId = await grant.save();
        await op.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
      } catch (err) {
        res.statusCode = 500;
        res.end(String(err));
      }
    })();
  });

  return state;
}
