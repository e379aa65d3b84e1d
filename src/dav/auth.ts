import type { FastifyRequest } from 'fastify';
import type { TokenGrant } from '../domain/account.js';
import type { AccountService } from '../service/accounts.js';
import type { SignInService } from '../service/sign-in.js';
import { DavError } from './errors.js';

/** What a 401 of CalDAV asks for (CALDAV.md section 2). */
export const BASIC_CHALLENGE = 'Basic realm="task-service", charset="UTF-8"';

/** Methods a `read` token may use: they change nothing. */
const READ_METHODS: ReadonlySet<string> = new Set(['OPTIONS', 'PROPFIND', 'REPORT', 'GET', 'HEAD']);

export interface DavGate {
  readonly accounts: AccountService;
  readonly signIn: SignInService;
  /** The per-token rate limit of /v1, when the operator set one: CalDAV counts against it too. */
  readonly admit: ((token: string) => boolean) | null;
}

function unauthorized(reason: string): DavError {
  return new DavError(401, reason, undefined, { 'www-authenticate': BASIC_CHALLENGE });
}

/** The username and password of `Authorization: Basic`, or undefined when the header is not one. */
function basicCredentials(header: string): { username: string; password: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (match?.[1] === undefined) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * Lets a CalDAV request in: HTTP Basic with the username and an app password (a token), or a
 * Bearer token. The sign-in password is refused with a body that says to make an app password;
 * every refused Basic attempt counts toward the sign-in throttle.
 */
export async function authenticateDav(gate: DavGate, request: FastifyRequest): Promise<TokenGrant> {
  const header = request.headers.authorization;
  if (header === undefined || header.trim() === '')
    throw unauthorized('sign in with your username and an app password');
  const bearer = /^(?:Bearer|OAuth)\s+(\S+)\s*$/i.exec(header)?.[1];
  const basic = bearer === undefined ? basicCredentials(header) : undefined;
  const token = bearer ?? basic?.password;
  if (token === undefined || token === '') throw unauthorized('the Authorization header is neither Basic nor Bearer');
  const result = await gate.accounts.authenticate(token);
  if (result.ok) {
    if (basic !== undefined && basic.username !== result.grant.account.username)
      throw unauthorized('this app password belongs to another username');
    if (!READ_METHODS.has(request.method) && result.grant.scope !== 'write')
      throw DavError.forbidden('this app password may only read: make one that may write');
    if (gate.admit !== null && !gate.admit(token))
      throw new DavError(503, 'too many requests: try again in a moment', undefined, { 'retry-after': '1' });
    return result.grant;
  }
  if (result.denial === 'forbidden') throw DavError.forbidden('this account is disabled');
  if (basic === undefined) throw unauthorized('this token is unknown, expired or revoked');
  const refusal = await gate.signIn.refuseBasic(basic.username, basic.password, request.ip);
  throw unauthorized(
    refusal === 'sign_in_password'
      ? 'this is the password you sign in with, which apps never get: make an app password under ' +
          'Settings, "Phones and desktop apps", and type that into the app instead'
      : 'wrong username or app password',
  );
}
