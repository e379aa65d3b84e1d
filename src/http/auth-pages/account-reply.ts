import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../domain/account.js';
import type { SignInService } from '../../service/sign-in.js';
import type { AccountErrorCode } from '../wire/account-shapes.js';
import { JSON_CONTENT_TYPE } from '../wire/content-type.js';
import { signedInAccount } from './session-cookie.js';

/** The answers hold secrets or an account's data: never kept by a cache on the way. */
export function sendAccountJson(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).headers({ 'cache-control': 'no-store' }).type(JSON_CONTENT_TYPE).send(body);
}

/** A refusal of an account endpoint, answered as its JSON error body by the scope's error handler. */
export class AccountError extends Error {
  override name = 'AccountError';
  constructor(
    readonly code: AccountErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const SIGNED_OUT = 'not signed in: sign in at /login';

export async function requireAccount(signIn: SignInService, request: FastifyRequest): Promise<Account> {
  const account = await signedInAccount(signIn, request);
  if (account === undefined) throw new AccountError('signed_out', SIGNED_OUT);
  return account;
}
