import type { AuthorizationCode, OAuthClient } from '../../domain/auth.js';
import { redirectUrisOf, scopeOf } from '../auth-columns.js';

export interface ClientRow {
  readonly id: string;
  readonly name: string;
  readonly secret_hash: string | null;
  readonly redirect_uris: string;
  readonly legacy_implicit: number;
  readonly created: number;
}

export interface CodeRow {
  readonly hash: string;
  readonly client_id: string;
  readonly account_id: number;
  readonly redirect_uri: string;
  readonly scope: string;
  readonly challenge: string | null;
  readonly expires_at: number;
  readonly used_at: number | null;
}

export interface TokenSummaryRow {
  readonly hash: string;
  readonly name: string;
  readonly scope: string;
  readonly client_id: string | null;
  readonly grant_id: string | null;
  readonly created: number;
  readonly last_used: number | null;
  readonly expires_at: number | null;
  readonly revoked_at: number | null;
}

export function clientFromRow(row: ClientRow): OAuthClient {
  return {
    id: row.id,
    name: row.name,
    secretHash: row.secret_hash,
    redirectUris: redirectUrisOf(row.redirect_uris),
    legacyImplicit: row.legacy_implicit === 1,
    created: row.created,
  };
}

export function codeFromRow(row: CodeRow): AuthorizationCode {
  return {
    hash: row.hash,
    clientId: row.client_id,
    accountId: row.account_id,
    redirectUri: row.redirect_uri,
    scope: scopeOf(row.scope),
    challenge: row.challenge,
    expiresAt: row.expires_at,
  };
}
