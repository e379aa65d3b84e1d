import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError } from '../../domain/oauth.js';
import type { TokenRequest } from '../../service/oauth.js';
import { fieldsOf, originOf } from '../auth-pages/form.js';
import { AUTH_RESULT_SCRIPT, authResultPage } from '../auth-pages/pages.js';
import { sendPage, type WebAuthDeps } from '../auth-pages/page-reply.js';
import { JSON_CONTENT_TYPE } from '../wire/content-type.js';
import { WireError } from '../wire/errors.js';
import { oauthErrorStatus, renderOAuthError } from '../wire/oauth-errors.js';
import type { OAuthMetadataBody, OAuthTokenBody } from '../wire/oauth-shapes.js';

const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(;|$)/i;

/** RFC 6749 section 2.3.1: `Basic base64(urlencode(id):urlencode(secret))`. */
function basicCredentials(request: FastifyRequest): TokenRequest['basic'] {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(request.headers.authorization ?? '');
  if (match?.[1] === undefined) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return undefined;
  try {
    const plus = (text: string): string => decodeURIComponent(text.replace(/\+/g, ' '));
    return { clientId: plus(decoded.slice(0, colon)), secret: plus(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

function tokenRequestOf(request: FastifyRequest): TokenRequest {
  if (!FORM_TYPE.test(request.headers['content-type'] ?? '')) {
    throw new OAuthError('invalid_request', 'the body must be application/x-www-form-urlencoded');
  }
  return { form: fieldsOf(request.body), basic: basicCredentials(request), address: request.ip };
}

/** Token answers and errors are never cached (RFC 6749 section 5.1). */
function sendOAuthJson(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply
    .code(status)
    .headers({ 'cache-control': 'no-store', pragma: 'no-cache' })
    .type(JSON_CONTENT_TYPE)
    .send(body);
}

function sendOAuthError(reply: FastifyReply, error: OAuthError): FastifyReply {
  if (error.code === 'invalid_client') void reply.header('www-authenticate', 'Basic realm="task-service"');
  if (error.code === 'temporarily_unavailable') void reply.header('retry-after', '60');
  return sendOAuthJson(reply, oauthErrorStatus(error.code), renderOAuthError(error.code, error.description));
}

/**
 * The token endpoint (`/oauth/access_token` and `/oauth/token`, the same), revocation (RFC 7009),
 * the metadata (RFC 8414) and the result page installed clients are sent back to.
 */
export function registerTokenRoutes(scope: FastifyInstance, deps: WebAuthDeps): void {
  scope.setErrorHandler((error, request, reply) => {
    if (error instanceof OAuthError) return sendOAuthError(reply, error);
    // A request the app's hooks refused (shed under load): the app's own answer, E503 with Retry-After.
    if (error instanceof WireError) throw error;
    const status = typeof error === 'object' && error !== null && 'statusCode' in error ? error.statusCode : undefined;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return sendOAuthError(reply, new OAuthError('invalid_request', 'the request could not be read'));
    }
    // Never the request itself in the log: it holds secrets.
    deps.log.error({ err: error, path: request.routeOptions.url }, 'oauth endpoint failed');
    return sendOAuthJson(reply, 500, renderOAuthError('server_error', 'try again later'));
  });

  async function exchange(request: FastifyRequest, reply: FastifyReply) {
    const answer: OAuthTokenBody = await deps.oauth.exchange(tokenRequestOf(request));
    return sendOAuthJson(reply, 200, JSON.stringify(answer));
  }
  scope.post('/oauth/access_token', exchange);
  scope.post('/oauth/token', exchange);

  async function revoke(request: FastifyRequest, reply: FastifyReply) {
    await deps.oauth.revoke(tokenRequestOf(request));
    // RFC 7009 section 2.2: the answer is the status alone.
    return reply.code(200).headers({ 'cache-control': 'no-store', pragma: 'no-cache' }).send();
  }
  scope.post('/oauth/revoke', revoke);

  async function metadata(request: FastifyRequest, reply: FastifyReply) {
    const base = originOf(request);
    const metadata: OAuthMetadataBody = {
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      revocation_endpoint: `${base}/oauth/revoke`,
      response_types_supported: ['code', 'token'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'implicit'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      scopes_supported: ['read', 'write'],
    };
    return sendOAuthJson(reply, 200, JSON.stringify(metadata));
  }
  scope.get('/.well-known/oauth-authorization-server', metadata);

  async function authResultHtml(_request: FastifyRequest, reply: FastifyReply) {
    return sendPage(reply, 200, authResultPage());
  }
  async function authResultScript(_request: FastifyRequest, reply: FastifyReply) {
    return reply
      .headers({ 'cache-control': 'no-cache' })
      .type('text/javascript; charset=utf-8')
      .send(AUTH_RESULT_SCRIPT);
  }
  scope.get('/oauth/auth_result.html', authResultHtml);
  scope.get('/oauth/auth_result.js', authResultScript);
}
