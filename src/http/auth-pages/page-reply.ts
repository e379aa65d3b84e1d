import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import type { Logger } from 'pino';
import type { AccountAccessService } from '../../service/account-access.js';
import type { OAuthService } from '../../service/oauth.js';
import type { PortabilityService } from '../../service/portability.js';
import type { SignInService } from '../../service/sign-in.js';
import type { ServiceMetrics } from '../metrics/metrics.js';
import { StoreUnavailableError } from '../../domain/errors.js';
import { RETRY_AFTER_SECONDS } from '../error-handling.js';
import { WireError } from '../wire/errors.js';
import { comesFromThisSite } from './form.js';
import { errorPage } from './pages.js';

export interface WebAuthDeps {
  readonly signIn: SignInService;
  readonly oauth: OAuthService;
  readonly access: AccountAccessService;
  readonly portability: PortabilityService;
  readonly log: Logger;
  /** Where refused sign-ins are counted (`GET /metrics`); absent: nothing is counted. */
  readonly metrics: ServiceMetrics | undefined;
  /** Whether the web app is served at `/`: sign-in then goes there when no page asked for another. */
  readonly webAppServed: boolean;
}

/**
 * Pages are never framed (clickjacking), never cached, and may run only this server's scripts.
 * No `form-action`: the consent form's answer redirects to the client, which it would block.
 */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  // Not no-referrer: with it, browsers send `Origin: null` on the pages' own form posts.
  'referrer-policy': 'same-origin',
} as const;

export function sendPage(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(body);
}

class CrossSiteError extends Error {
  override name = 'CrossSiteError';
}

/** The pre-handlers of every form POST: the `Origin` check, then the CSRF token. */
export function guardForm(scope: FastifyInstance): preHandlerHookHandler[] {
  const checkOrigin: preHandlerHookHandler = (request, _reply, done) => {
    done(comesFromThisSite(request) ? undefined : new CrossSiteError('the form came from another site'));
  };
  return [checkOrigin, scope.csrfProtection];
}

export function isCsrfFailure(error: unknown): boolean {
  if (error instanceof CrossSiteError) return true;
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    typeof error.code === 'string' &&
    error.code.startsWith('FST_CSRF_')
  );
}

export function failedPage(
  deps: WebAuthDeps,
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  // A request the app's hooks refused (shed under load): the app's own answer, E503 with Retry-After.
  if (error instanceof WireError) throw error;
  if (isCsrfFailure(error)) {
    return sendPage(
      reply,
      403,
      errorPage('Form refused', 'This form expired or came from another site. Go back, reload the page and try again.'),
    );
  }
  if (typeof error === 'object' && error !== null && 'statusCode' in error && error.statusCode === 413) {
    return sendPage(reply, 413, errorPage('Too large', 'The form was too large.'));
  }
  // The store not answering is no failure of the page: said as /v1 says it (503, Retry-After).
  if (error instanceof StoreUnavailableError) {
    deps.log.warn({ err: error, path: request.routeOptions.url }, 'store unavailable');
    void reply.header('retry-after', RETRY_AFTER_SECONDS);
    return sendPage(
      reply,
      503,
      errorPage('Not available', 'The server cannot reach its storage just now. Try again in a moment.'),
    );
  }
  // Never the request itself in the log: it may hold a password.
  deps.log.error({ err: error, path: request.routeOptions.url }, 'sign-in page failed');
  return sendPage(reply, 500, errorPage('Something went wrong', 'The server could not answer. Try again in a moment.'));
}
