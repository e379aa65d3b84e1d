import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthorizeParams } from '../../domain/oauth.js';
import { fieldsOf, type Fields } from '../auth-pages/form.js';
import { consentPage, errorPage } from '../auth-pages/pages.js';
import { guardForm, sendPage, type WebAuthDeps } from '../auth-pages/page-reply.js';
import { signedInAccount } from '../auth-pages/session-cookie.js';

/** The parameters of an authorization request that the consent form carries to its POST. */
function paramsOf(fields: Fields): AuthorizeParams {
  return {
    response_type: fields['response_type'],
    client_id: fields['client_id'],
    redirect_uri: fields['redirect_uri'],
    state: fields['state'],
    scope: fields['scope'],
    code_challenge: fields['code_challenge'],
    code_challenge_method: fields['code_challenge_method'],
  };
}

/** Back to this authorization request after signing in: the sign-in page with `next`. */
function toSignIn(request: FastifyRequest, reply: FastifyReply, params: AuthorizeParams): FastifyReply {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.append(name, value);
  const back = `/oauth/authorize?${query.toString()}`;
  return reply.redirect(`/login?next=${encodeURIComponent(back)}`, request.method === 'GET' ? 302 : 303);
}

/**
 * `GET /oauth/authorize` checks the request, signs the person in, and shows the consent page (or
 * answers at once when this client already holds as much); `POST` is the consent form's answer.
 */
export function registerAuthorizeRoutes(scope: FastifyInstance, deps: WebAuthDeps): void {
  async function answer(request: FastifyRequest, reply: FastifyReply, fields: Fields, decision: string | undefined) {
    const params = paramsOf(fields);
    const check = await deps.oauth.checkAuthorize(params);
    if (check.kind === 'error_page') {
      // Never redirected to: the client or its redirect URI is not known to be the client's.
      return sendPage(reply, 400, errorPage('Authorization failed', check.message));
    }
    const status = request.method === 'GET' ? 302 : 303;
    if (check.kind === 'redirect') return reply.redirect(check.location, status);
    const account = await signedInAccount(deps.signIn, request);
    if (account === undefined) return toSignIn(request, reply, params);
    if (decision === 'deny') return reply.redirect(deps.oauth.deny(check.request), status);
    if (decision === 'allow' || !(await deps.oauth.needsConsent(account, check.request))) {
      return reply.redirect(await deps.oauth.approve(account, check.request), status);
    }
    const view = {
      csrf: reply.generateCsrf(),
      clientName: check.request.client.name,
      username: account.username,
      scope: check.request.scope,
      params: { ...params },
    };
    return sendPage(reply, 200, consentPage(view));
  }

  async function authorizeAsked(request: FastifyRequest, reply: FastifyReply) {
    return answer(request, reply, fieldsOf(request.query), undefined);
  }
  scope.get('/oauth/authorize', authorizeAsked);
  async function authorizeDecided(request: FastifyRequest, reply: FastifyReply) {
    const form = fieldsOf(request.body);
    return answer(request, reply, form, form['decision'] === 'allow' ? 'allow' : 'deny');
  }
  scope.post('/oauth/authorize', { preHandler: guardForm(scope) }, authorizeDecided);
}
