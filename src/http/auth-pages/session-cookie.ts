import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../domain/account.js';
import type { SignInService } from '../../service/sign-in.js';

export const SESSION_COOKIE = 'task_session';
const THIRTY_DAYS_SECONDS = 30 * 86_400;

/** The session id from its cookie (HttpOnly, SameSite=Lax, Secure over HTTPS, Path=/). */
export function sessionIdOf(request: FastifyRequest): string {
  return request.cookies[SESSION_COOKIE] ?? '';
}

export function setSessionCookie(reply: FastifyReply, sessionId: string): void {
  void reply.setCookie(SESSION_COOKIE, sessionId, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: 'auto',
    maxAge: THIRTY_DAYS_SECONDS,
  });
}

export function clearSessionCookie(reply: FastifyReply): void {
  void reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: 'auto' });
}

/** The signed-in account, or undefined (no cookie, ended, idle too long, or account disabled). */
export function signedInAccount(signIn: SignInService, request: FastifyRequest): Promise<Account | undefined> {
  return signIn.accountOf(sessionIdOf(request));
}
