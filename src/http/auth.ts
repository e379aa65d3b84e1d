import type { FastifyRequest } from 'fastify';
import type { TokenGrant } from '../domain/account.js';
import type { AccountService } from '../service/accounts.js';
import type { TokenRateLimiter } from './rate-limit.js';
import { rawQuery } from './query.js';
import { WireError } from './wire/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `authenticate` for every /v1 request that got past it. */
    grant: TokenGrant | null;
  }
}

const AUTHORIZATION = /^(?:OAuth|Bearer)\s+(\S+)\s*$/i;

/** The token a request carries: `Authorization: OAuth|Bearer <token>`, else `?access_token=`. */
function credentialOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header !== undefined) return AUTHORIZATION.exec(header)?.[1] ?? '';
  const query = rawQuery(request);
  if (!query.includes('access_token=')) return undefined;
  return new URLSearchParams(query).get('access_token') ?? undefined;
}

/** Whether the request carries a token at all (valid or not): checked before its body is read. */
export function carriesCredential(request: FastifyRequest): boolean {
  return request.headers.authorization !== undefined || rawQuery(request).includes('access_token');
}

/** What every /v1 request passes: the token check, and the per-token rate limit when one is set. */
export interface Gate {
  readonly accounts: AccountService;
  readonly limiter: TokenRateLimiter | null;
}

/**
 * Lets a request in or refuses it: E401 for a missing, malformed, unknown, expired or revoked
 * token; E403 for a disabled account or a read-only token on a POST; E503 past the rate limit.
 */
export async function authenticate(gate: Gate, request: FastifyRequest): Promise<TokenGrant> {
  const token = credentialOf(request);
  if (token === undefined || token === '') throw WireError.unauthorized();
  const result = await gate.accounts.authenticate(token);
  if (!result.ok) throw result.denial === 'forbidden' ? WireError.forbidden() : WireError.unauthorized();
  if (request.method === 'POST' && result.grant.scope !== 'write') throw WireError.forbidden();
  request.grant = result.grant;
  if (gate.limiter !== null && !gate.limiter.admit(token)) throw WireError.unavailable();
  return result.grant;
}
