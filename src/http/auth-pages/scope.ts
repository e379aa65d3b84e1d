import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { registerAuthorizeRoutes } from '../oauth/authorize.js';
import { registerTokenRoutes } from '../oauth/token.js';
import { failedPage, type WebAuthDeps } from './page-reply.js';
import { registerAccountRoutes } from './account-routes.js';
import { registerSignInRoutes } from './routes.js';

/**
 * Sign-in, consent and the OAuth endpoints, each in an encapsulated scope of its own: the cookie,
 * form-body and CSRF plugins registered here reach these routes only, so `/v1` keeps its own body
 * handling (a form POST to `/v1/tasks` is still E005).
 */
export function registerWebAuth(app: FastifyInstance, deps: WebAuthDeps): void {
  void app.register(async (scope) => {
    await scope.register(fastifyCookie);
    await scope.register(fastifyFormbody);
    await scope.register(fastifyCsrf, {
      cookieKey: 'task_csrf',
      cookieOpts: { path: '/', sameSite: 'lax', httpOnly: true, secure: 'auto' },
    });
    scope.setErrorHandler((error, request, reply) => failedPage(deps, error, request, reply));
    registerSignInRoutes(scope, deps);
    registerAuthorizeRoutes(scope, deps);
    // Inside the pages' scope (cookies, forms, CSRF), with an error handler of its own (JSON).
    await scope.register(async (account) => registerAccountRoutes(account, deps));
  });
  void app.register(async (scope) => {
    await scope.register(fastifyFormbody);
    registerTokenRoutes(scope, deps);
  });
}
