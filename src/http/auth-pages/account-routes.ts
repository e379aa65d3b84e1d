import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StoreUnavailableError } from '../../domain/errors.js';
import { WireError } from '../wire/errors.js';
import {
  ACCOUNT_ERROR_STATUS,
  renderAccountError,
  renderAppToken,
  renderConnectedApps,
  renderMadeToken,
  renderSessionAnswer,
  renderTokenList,
} from '../wire/account.js';
import { AccountError, requireAccount, sendAccountJson, SIGNED_OUT } from './account-reply.js';
import { fieldsOf } from './form.js';
import { guardForm, isCsrfFailure, type WebAuthDeps } from './page-reply.js';
import { IMPORT_BODY_LIMIT_BYTES, registerPortabilityRoutes } from './portability-routes.js';
import { sessionIdOf, setSessionCookie } from './session-cookie.js';

/** `expires_in_days`: empty or missing means never; anything else a whole number of days. */
function expiryDaysOf(text: string | undefined): number | null {
  if (text === undefined || text === '' || text === 'never') return null;
  if (!/^\d{1,6}$/.test(text)) throw new AccountError('invalid', 'expires_in_days must be a number of days or "never"');
  return Number(text);
}

/**
 * The signed-in browser's own endpoints (docs/auth.md): the web app's token for its session, and
 * the settings page's password, tokens, connected apps, export and import. Authenticated by the session cookie,
 * never by a token (a token cannot make tokens or change the password); every POST is form-encoded
 * and CSRF-checked like the pages' forms (the token in `X-CSRF-Token` or `_csrf`, plus `Origin`).
 * Registered in a scope of their own inside the pages' scope: errors answer JSON, not a page.
 */
export function registerAccountRoutes(scope: FastifyInstance, deps: WebAuthDeps): void {
  const { signIn, access } = deps;
  const guarded = { preHandler: guardForm(scope) };

  scope.setErrorHandler((error, request, reply) => {
    if (error instanceof AccountError) {
      return sendAccountJson(reply, ACCOUNT_ERROR_STATUS[error.code], renderAccountError(error.code, error.message));
    }
    // A request the app's hooks refused (shed under load): the app's own answer, E503 with Retry-After.
    if (error instanceof WireError) throw error;
    // The store away: answered as /v1 answers it, E503 with Retry-After, for the app to retry.
    if (error instanceof StoreUnavailableError) {
      deps.log.warn({ err: error, path: request.routeOptions.url }, 'store unavailable');
      throw WireError.unavailable();
    }
    if (isCsrfFailure(error)) {
      const message = 'the request came from another site, or its CSRF token is missing or stale';
      return sendAccountJson(reply, 403, renderAccountError('forbidden', message));
    }
    if (typeof error === 'object' && error !== null && 'statusCode' in error && error.statusCode === 413) {
      const message =
        request.routeOptions.url === '/account/import'
          ? `the file is larger than an import takes (${IMPORT_BODY_LIMIT_BYTES / (1024 * 1024)} MiB): ` +
            'split it, or import it with the command line'
          : 'the request is too large';
      return sendAccountJson(reply, 413, renderAccountError('too_large', message));
    }
    // Never the request itself in the log: it may hold a password.
    deps.log.error({ err: error, path: request.routeOptions.url }, 'account endpoint failed');
    return sendAccountJson(reply, 500, renderAccountError('server_error', 'the server could not answer; try again'));
  });

  async function session(request: FastifyRequest, reply: FastifyReply) {
    const account = await requireAccount(signIn, request);
    return sendAccountJson(reply, 200, renderSessionAnswer(account, reply.generateCsrf()));
  }
  scope.get('/account/session', session);

  async function appToken(request: FastifyRequest, reply: FastifyReply) {
    const made = await signIn.appTokenFor(sessionIdOf(request));
    if (made === undefined) throw new AccountError('signed_out', SIGNED_OUT);
    return sendAccountJson(reply, 200, renderAppToken(made.token, made.expiresInSeconds));
  }
  scope.post('/account/app-token', guarded, appToken);

  async function changePassword(request: FastifyRequest, reply: FastifyReply) {
    const account = await requireAccount(signIn, request);
    const form = fieldsOf(request.body);
    const result = await signIn.changePassword(
      account,
      form['current_password'] ?? '',
      form['new_password'] ?? '',
      request.ip,
    );
    if (!result.ok) throw new AccountError('invalid', result.message);
    setSessionCookie(reply, result.sessionId);
    return sendAccountJson(reply, 200, renderAppToken(result.appToken.token, result.appToken.expiresInSeconds));
  }
  scope.post('/account/password', guarded, changePassword);

  async function listTokens(request: FastifyRequest, reply: FastifyReply) {
    const account = await requireAccount(signIn, request);
    return sendAccountJson(reply, 200, renderTokenList(await access.personalTokens(account), account));
  }
  scope.get('/account/tokens', listTokens);

  async function makeToken(request: FastifyRequest, reply: FastifyReply) {
    const account = await requireAccount(signIn, request);
    const form = fieldsOf(request.body);
    const tokenScope = form['scope'] ?? 'write';
    if (tokenScope !== 'read' && tokenScope !== 'write')
      throw new AccountError('invalid', 'scope must be read or write');
    const made = await access.makeToken(account, {
      name: form['name'] ?? '',
      scope: tokenScope,
      expiresInDays: expiryDaysOf(form['expires_in_days']),
    });
    if (!made.ok) throw new AccountError('invalid', made.message);
    return sendAccountJson(reply, 201, renderMadeToken(made.token, made.summary, account));
  }
  scope.post('/account/tokens', guarded, makeToken);

  async function revokeToken(request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
    const account = await requireAccount(signIn, request);
    if (!(await access.revokeToken(account, request.params.id))) {
      throw new AccountError('not_found', 'no such token');
    }
    return reply.code(204).headers({ 'cache-control': 'no-store' }).send();
  }
  scope.post<{ Params: { id: string } }>('/account/tokens/:id/revoke', guarded, revokeToken);

  async function listApps(request: FastifyRequest, reply: FastifyReply) {
    const account = await requireAccount(signIn, request);
    return sendAccountJson(reply, 200, renderConnectedApps(await access.connectedApps(account), account));
  }
  scope.get('/account/apps', listApps);

  async function revokeApp(request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
    const account = await requireAccount(signIn, request);
    if (!(await access.revokeApp(account, request.params.id))) throw new AccountError('not_found', 'no such app');
    return reply.code(204).headers({ 'cache-control': 'no-store' }).send();
  }
  scope.post<{ Params: { id: string } }>('/account/apps/:id/revoke', guarded, revokeApp);

  registerPortabilityRoutes(scope, deps);
}
