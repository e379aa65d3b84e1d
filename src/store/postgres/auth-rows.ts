import type { Scope } from '../../domain/account.js';
import type { AuthorizationCode, OAuthClient } from '../../domain/auth.js';
import { numberFromBigint, type BigintText } from './values.js';

export interface ClientRow {
  readonly id: string;
  readonly name: string;
  readonly secret_hash: string | null;
  readonly redirect_uris: string;
  readonly legacy_implicit: boolean;
  readonly created: BigintText;
}

export interface CodeRow {
  readonly hash: string;
  readonly client_id: string;
  readonly account_id: BigintText;
  readonly redirect_uri: string;
  readonly scope: string;
  readonly challenge: string | null;
  readonly expires_at: BigintText;
  readonly used_at: BigintText | null;
}

/** The schema's CHECK keeps scope columns valid; this narrows the type without a cast. */
export function scopeOf(value: string): Scope {
  if (value === 'read' || value === 'write') return value;
  throw new Error(`a scope column holds an unknown value: ${value}`);
}

function redirectUrisOf(json: string): readonly string[] {
  const parsed: unknown = JSON.parse(json);
  if (!Array.isArray(parsed) || !parsed.every((uri): uri is string => typeof uri === 'string')) {
    throw new Error('oauth_clients.redirect_uris is not a JSON array of strings');
  }
  return parsed;
}

export function clientFromRow(row: ClientRow): OAuthClient {
  return {
    id: row.id,
    name: row.name,
    secretHash: row.secret_hash,
    redirectUris: redirectUrisOf(row.redirect_uris),
    legacyImplicit: row.legacy_implicit,
    created: numberFromBigint(row.created),
  };
}

export function codeFromRow(row: CodeRow): AuthorizationCode {
  return {
    hash: row.hash,
    clientId: row.client_id,
    accountId: numberFromBigint(row.account_id),
    redirectUri: row.redirect_uri,
    scope: scopeOf(row.scope),
    challenge: row.challenge,
    expiresAt: numberFromBigint(row.expires_at),
  };
}
