import type { AuthorizationCode, OAuthClient } from '../../domain/auth.js';
import { redirectUrisOf, scopeOf } from '../auth-columns.js';
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
