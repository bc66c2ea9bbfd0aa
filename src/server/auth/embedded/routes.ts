// The GoTrue HTTP API at /auth/v1, as @supabase/supabase-js v2 calls it. Shapes and error codes
// follow supabase/auth (internal/api/*.go); the logic lives in service.ts.
import querystring from 'node:querystring';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { UNSTORABLE_TEXT } from '../../../contract/text';
import { isUnstorableTextError } from '../../db/errors';
import { bearerToken } from '../caller';
import { API_VERSION_HEADER, GoTrueError, gotrue, sendGoTrueError, wantsModernErrors } from '../gotrue-errors';
import type { AuthSession } from '../types';
import type { GoogleOidc } from './google';
import { isPlainObject, isUuid, parsePkce, type EmbeddedAuthService, type RequestMeta } from './service';
import { randomToken, type TokenSigner } from './tokens';

export interface RoutesOptions {
  service: EmbeddedAuthService;
  signer: TokenSigner;
  google: GoogleOidc | null;
  publicUrl: string;
  siteUrl: string;
}

type Query = Record<string, string | undefined>;

function str(body: Record<string, unknown>, key: string): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw gotrue.badJson(`${key} must be a string`);
  return v;
}

const isLoopback = (host: string) => host === 'localhost' || host === '127.0.0.1' || host === '[::1]';

/** What the route groups share: the options plus where a flow may send the browser back to. */
interface RouteContext extends RoutesOptions {
  resolveRedirect: (raw: string | undefined) => string;
}

/** Where a flow may send the browser back to: our own origin (or, for a server on localhost, any
 * localhost port, which is where the Vite dev server runs). Anything else falls back to the site
 * URL, as GoTrue does with addresses outside its allow list. */
function redirectResolver(publicUrl: string, siteUrl: string): (raw: string | undefined) => string {
  const allowedOrigins = new Set([new URL(publicUrl).origin, new URL(siteUrl).origin]);
  const devLoopback = isLoopback(new URL(publicUrl).hostname);
  return (raw) => {
    if (!raw) return siteUrl;
    try {
      const u = new URL(raw);
      if ((u.protocol === 'http:' || u.protocol === 'https:') && (allowedOrigins.has(u.origin) || (devLoopback && isLoopback(u.hostname)))) return u.href;
    } catch {
      /* not a URL */
    }
    return siteUrl;
  };
}

function meta(request: FastifyRequest): RequestMeta {
  const ua = request.headers['user-agent'];
  return { ip: request.ip ?? null, userAgent: typeof ua === 'string' ? ua : null };
}

function withQuery(base: string, params: Record<string, string>): string {
  const u = new URL(base);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.href;
}

function withSessionFragment(base: string, session: AuthSession, type?: string): string {
  const u = new URL(base);
  const params = new URLSearchParams({
    access_token: session.access_token,
    expires_at: String(session.expires_at),
    expires_in: String(session.expires_in),
    refresh_token: session.refresh_token,
    token_type: session.token_type,
    ...(type ? { type } : {}),
  });
  u.hash = params.toString();
  return u.href;
}

function errorRedirect(base: string, err: GoTrueError | { error: string; code: string; description: string }): string {
  if (err instanceof GoTrueError) {
    const error = err.status === 403 ? 'access_denied' : err.status >= 500 ? 'server_error' : 'invalid_request';
    return withQuery(base, { error, error_code: err.code, error_description: err.message });
  }
  return withQuery(base, { error: err.error, error_code: err.code, error_description: err.description });
}

function bodyOf(request: FastifyRequest): Record<string, unknown> {
  const b = request.body;
  if (b === undefined || b === null) return {};
  if (!isPlainObject(b)) throw gotrue.badJson('request body must be a JSON object');
  return b;
}

/** Body parsing, errors, 404s and headers in GoTrue's shapes, for this plugin only. */
function useGoTrueHttp(app: FastifyInstance): void {
  // supabase-js sends `Content-Type: application/json` with no body on /logout, and OAuth-style
  // clients post forms to /token: accept both, here only.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: 1024 * 1024 }, (_req, body, done) => {
    const text = String(body).trim();
    if (!text) return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(gotrue.badJson((err as Error).message), undefined);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 1024 * 1024 }, (_req, body, done) => {
    done(null, { ...querystring.parse(String(body)) });
  });

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, request, reply) => {
    if (err instanceof GoTrueError) {
      if (err.status >= 500) request.log.error({ err: (err as { cause?: unknown }).cause ?? err }, err.message);
      return sendGoTrueError(request, reply, err);
    }
    const status = typeof err.statusCode === 'number' ? err.statusCode : 500;
    if (status === 413) return sendGoTrueError(request, reply, new GoTrueError(413, 'request_too_large', 'Request body is too large'));
    if (status === 415) return sendGoTrueError(request, reply, new GoTrueError(415, 'validation_failed', 'Unsupported content type'));
    if (status >= 400 && status < 500) return sendGoTrueError(request, reply, gotrue.badJson(err.message));
    if (isUnstorableTextError(err)) return sendGoTrueError(request, reply, gotrue.validation(`Text ${UNSTORABLE_TEXT}`));
    request.log.error({ err }, 'auth service error');
    return sendGoTrueError(request, reply, gotrue.internal('Unexpected failure, please check server logs for more information'));
  });

  app.setNotFoundHandler((request, reply) => sendGoTrueError(request, reply, gotrue.notFound('not_found', 'Not Found')));

  app.addHook('onSend', async (request, reply) => {
    if (wantsModernErrors(request)) reply.header(API_VERSION_HEADER, '2024-01-01');
    // Tokens and user data must not sit in shared caches.
    reply.header('cache-control', 'no-store');
  });
}

/** `/health`, `/settings` and `/.well-known/jwks.json`: what a client asks before signing in. */
function discoveryRoutes(app: FastifyInstance, { service, google }: RouteContext): void {
  app.get('/health', async () => ({ version: 'vellum', name: 'GoTrue', description: 'Vellum embedded auth service (GoTrue API compatible)' }));

  app.get('/settings', async () => ({
    external: {
      anonymous_users: false,
      apple: false,
      azure: false,
      bitbucket: false,
      discord: false,
      facebook: false,
      figma: false,
      fly: false,
      github: false,
      gitlab: false,
      google: google !== null,
      keycloak: false,
      kakao: false,
      linkedin_oidc: false,
      notion: false,
      slack_oidc: false,
      spotify: false,
      twitch: false,
      twitter: false,
      workos: false,
      zoom: false,
      email: true,
      phone: false,
    },
    disable_signup: false,
    mailer_autoconfirm: service.autoconfirm,
    phone_autoconfirm: false,
    sms_provider: '',
    saml_enabled: false,
  }));

  // HS256 keys are never published; supabase-js falls back to GET /user for such tokens.
  app.get('/.well-known/jwks.json', async () => ({ keys: [] }));
}

/** `/signup`, `/token`, `GET`/`PUT /user` and `/logout`. */
function sessionRoutes(app: FastifyInstance, { service, resolveRedirect }: RouteContext): void {
  app.post('/signup', async (request) => {
    const body = bodyOf(request);
    const q = request.query as Query;
    const result = await service.signUp(
      {
        email: body.email,
        password: body.password,
        data: body.data,
        pkce: parsePkce(body.code_challenge, body.code_challenge_method),
        redirectTo: resolveRedirect(q.redirect_to),
      },
      meta(request),
    );
    return result.kind === 'session' ? result.session : result.user;
  });

  app.post('/token', async (request) => {
    const body = bodyOf(request);
    const q = request.query as Query;
    const grant = q.grant_type ?? str(body, 'grant_type');
    switch (grant) {
      case 'password':
        return service.passwordGrant({ email: body.email, password: body.password }, meta(request));
      case 'refresh_token':
        return service.refreshGrant(body.refresh_token, meta(request));
      case 'pkce':
        return service.pkceGrant(body.auth_code, body.code_verifier, meta(request));
      default:
        throw gotrue.badRequest('invalid_credentials', 'unsupported_grant_type');
    }
  });

  app.get('/user', async (request) => service.getUser(await service.authenticate(bearerToken(request))));

  app.put('/user', async (request) => {
    const auth = await service.authenticate(bearerToken(request));
    const body = bodyOf(request);
    const q = request.query as Query;
    return service.updateUser(auth, body, parsePkce(body.code_challenge, body.code_challenge_method), resolveRedirect(q.redirect_to), meta(request));
  });

  app.post('/logout', async (request, reply) => {
    const auth = await service.authenticate(bearerToken(request));
    await service.logout(auth, (request.query as Query).scope);
    return reply.status(204).send();
  });
}

/** `/verify`: the links in confirmation and e-mail change mails. */
function emailLinkRoutes(app: FastifyInstance, { service, resolveRedirect }: RouteContext): void {
  app.get('/verify', async (request, reply) => {
    const q = request.query as Query;
    const fallback = resolveRedirect(q.redirect_to);
    try {
      if (!q.token) throw new GoTrueError(403, 'otp_expired', 'Email link is invalid or has expired');
      const result = await service.verifyEmailLink(q.token, q.type ?? '', meta(request));
      if (result.authCode) return reply.redirect(withQuery(result.redirectTo ? resolveRedirect(result.redirectTo) : fallback, { code: result.authCode }), 303);
      return reply.redirect(withSessionFragment(fallback, result.session!, q.type === 'email_change' ? 'email_change' : 'signup'), 303);
    } catch (err) {
      if (err instanceof GoTrueError && err.status < 500) return reply.redirect(errorRedirect(fallback, err), 303);
      throw err;
    }
  });
}

/** `/authorize` and `/callback`: Google sign-in (OpenID Connect). */
function oauthRoutes(app: FastifyInstance, { service, google, siteUrl, resolveRedirect }: RouteContext): void {
  app.get('/authorize', async (request, reply) => {
    const q = request.query as Query;
    const provider = (q.provider ?? '').toLowerCase();
    if (provider !== 'google') throw gotrue.validation(`Unsupported provider: Provider ${q.provider ?? ''} could not be found`);
    if (!google) throw gotrue.validation('Unsupported provider: provider is not enabled');
    const pkce = parsePkce(q.code_challenge, q.code_challenge_method);
    const nonce = randomToken();
    const codeVerifier = randomToken();
    const flowId = await service.startOAuthFlow({ provider, pkce, redirectTo: resolveRedirect(q.redirect_to), nonce, codeVerifier });
    let url: string;
    try {
      url = await google.authorizationUrl({ state: flowId, nonce, codeVerifier, scopes: q.scopes });
    } catch (err) {
      await service.dropFlow(flowId);
      throw gotrue.internal('Unable to reach the Google sign-in service').withCause(err);
    }
    if (q.skip_http_redirect === 'true') return { url };
    return reply.redirect(url, 302);
  });

  const callback = async (request: FastifyRequest, reply: FastifyReply) => {
    // Google answers with a query string; form_post providers with a form body.
    const params: Query = { ...(request.query as Query), ...(isPlainObject(request.body) ? (request.body as Query) : {}) };
    const flow = params.state ? await service.findOAuthFlow(params.state) : null;
    if (!flow || !google) {
      return reply.redirect(errorRedirect(siteUrl, { error: 'invalid_request', code: 'bad_oauth_state', description: 'OAuth state is invalid or has expired' }), 303);
    }
    if (params.error) {
      await service.dropFlow(flow.id);
      return reply.redirect(errorRedirect(flow.redirectTo, { error: params.error, code: 'bad_oauth_callback', description: params.error_description ?? 'The provider refused the sign-in' }), 303);
    }
    const callbackUrl = new URL(google.redirectUri);
    for (const [k, v] of Object.entries(params)) if (typeof v === 'string') callbackUrl.searchParams.set(k, v);
    let claims;
    try {
      claims = await google.exchange(callbackUrl, { state: flow.id, nonce: flow.oidcNonce, codeVerifier: flow.oidcCodeVerifier });
    } catch (err) {
      request.log.warn({ err }, 'OpenID code exchange failed');
      await service.dropFlow(flow.id);
      return reply.redirect(errorRedirect(flow.redirectTo, { error: 'server_error', code: 'bad_oauth_callback', description: 'Unable to exchange external code' }), 303);
    }
    try {
      const result = await service.completeOAuthFlow(flow, claims, meta(request));
      if (result.authCode) return reply.redirect(withQuery(flow.redirectTo, { code: result.authCode }), 303);
      return reply.redirect(withSessionFragment(flow.redirectTo, result.session!), 303);
    } catch (err) {
      await service.dropFlow(flow.id);
      if (err instanceof GoTrueError && err.status < 500) return reply.redirect(errorRedirect(flow.redirectTo, err), 303);
      throw err;
    }
  };
  app.get('/callback', callback);
  app.post('/callback', callback);
}

/** `DELETE /admin/users/:id`, for a service_role token. */
function adminRoutes(app: FastifyInstance, { service, signer }: RouteContext): void {
  app.delete('/admin/users/:id', async (request) => {
    const token = bearerToken(request);
    if (!token) throw gotrue.noAuthorization();
    let claims: Record<string, unknown>;
    try {
      claims = await signer.verify(token);
    } catch (err) {
      throw gotrue.badJwt((err as Error).message);
    }
    if (claims.role !== 'service_role' && claims.role !== 'supabase_admin') throw gotrue.notAdmin();
    const { id } = request.params as { id: string };
    if (!isUuid(id) || !(await service.deleteUser(id))) throw gotrue.notFound('user_not_found', 'User not found');
    return {};
  });
}

export function authRoutes(opts: RoutesOptions) {
  const ctx: RouteContext = { ...opts, resolveRedirect: redirectResolver(opts.publicUrl, opts.siteUrl) };
  return async function plugin(app: FastifyInstance): Promise<void> {
    useGoTrueHttp(app);
    discoveryRoutes(app, ctx);
    sessionRoutes(app, ctx);
    emailLinkRoutes(app, ctx);
    oauthRoutes(app, ctx);
    adminRoutes(app, ctx);
  };
}
