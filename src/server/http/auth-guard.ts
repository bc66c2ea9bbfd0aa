// The Fastify hook in front of /api: every route there needs a bearer credential unless it is
// declared `config: { public: true }`; what a credential may be and how it is checked (access
// token or API key, deactivated accounts) is ../auth/caller.ts. Routes declared
// `config: { sessionOnly: true }` (the account's own calls) refuse API keys. The verified caller
// is on request.user.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerToken } from '../auth/caller';
import { authenticate, type Caller } from '../services/caller';
import type { AuthProvider, AuthUser } from '../auth/types';
import type { AppContext } from '../context';
import { errors } from '../errors';

declare module 'fastify' {
  interface FastifyRequest {
    user: AuthUser | null;
    /** Set when the caller authenticated with an API key; request.user is then the key's principal. */
    apiKey: Caller['apiKey'];
  }
  interface FastifyContextConfig {
    public?: boolean;
    /** Only a person's session may call this route (account, invites, API key management). */
    sessionOnly?: boolean;
  }
}

export interface RegisteredRoute {
  method: string;
  url: string;
  public: boolean;
  sessionOnly: boolean;
}

const routeLists = new WeakMap<object, RegisteredRoute[]>();

// Routes of other modules that only a person may call: a key acts inside its one organization,
// so it does not create organizations.
const SESSION_ONLY = new Set(['POST /api/v1/organizations']);

/** Every API route the app registered (methods split, HEAD left out): the permission table test walks them. */
export function registeredApiRoutes(app: FastifyInstance): RegisteredRoute[] {
  return [...(routeLists.get(app) ?? [])];
}

export function installAuthGuard(app: FastifyInstance, auth: AuthProvider, ctx?: AppContext): void {
  app.decorateRequest('user', null);
  app.decorateRequest('apiKey', null);
  const routes: RegisteredRoute[] = [];
  routeLists.set(app, routes);
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/') || route.url.startsWith('/api/docs')) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.some((m) => SESSION_ONLY.has(`${m} ${route.url}`))) route.config = { ...route.config, sessionOnly: true };
    for (const method of methods) {
      if (method === 'HEAD') continue;
      routes.push({ method, url: route.url, public: Boolean(route.config?.public), sessionOnly: Boolean(route.config?.sessionOnly) });
    }
  });

  app.addHook('preHandler', async (request) => {
    // Decided on the route the router matched, never on the raw URL: the router decodes the path
    // (`/%61pi/v1/...` matches `/api/v1/...`) while request.url keeps it encoded.
    if (!isGuarded(request)) return;
    const token = bearerToken(request);
    if (!token) throw errors.unauthorized('Missing bearer token', 'no_token');
    const caller = await authenticate(auth, ctx, token);
    if (caller.apiKey && request.routeOptions.config?.sessionOnly) throw errors.forbidden('API keys cannot call this route; sign in instead', 'api_key_not_allowed');
    request.apiKey = caller.apiKey;
    request.user = caller.user;
  });
}

/**
 * Whether the route that matched needs a credential: every route registered under /api/ does
 * unless it is declared `config: { public: true }`. Unknown URLs (404) and the OpenAPI viewer do
 * not; the routes outside /api (/auth/v1, signed /storage URLs, the app) check their own tokens.
 */
function isGuarded(request: FastifyRequest): boolean {
  if (request.is404) return false;
  const route = request.routeOptions.url;
  if (typeof route !== 'string' || !route.startsWith('/api/') || route.startsWith('/api/docs')) return false;
  return !request.routeOptions.config?.public;
}

/** The caller of a route behind the guard. */
export function callerOf(request: FastifyRequest): AuthUser {
  if (!request.user) throw errors.unauthorized();
  return request.user;
}
