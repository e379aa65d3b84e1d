import type { Account } from '../../domain/account.js';
import type { ConnectedApp, TokenSummary } from '../../domain/auth.js';
import type { Micros } from '../../domain/time.js';
import { formatDateTime } from './dates.js';
import { jsonString } from './json.js';

/**
 * The answers of the signed-in browser's account endpoints (`/account/*`, docs/auth.md): JSON in
 * the API's own conventions (every string HTML-escaped, dates `YYYY-MM-DD HH:MM:SS +hhmm` in the
 * account's zone), so a client reads them like `/v1`. Never a token's hash; a token itself only in
 * the one answer that made it.
 */

export type AccountErrorCode = 'signed_out' | 'forbidden' | 'invalid' | 'not_found' | 'too_large' | 'server_error';

export function renderAccountError(code: AccountErrorCode, message: string): string {
  return `{"error":${jsonString(code)},"message":${jsonString(message)}}`;
}

function dateOrNull(us: Micros | null, zone: string): string {
  return us === null ? 'null' : jsonString(formatDateTime(us, zone));
}

/** Who is signed in, and the CSRF token the browser sends back with every POST. */
export function renderSessionAnswer(account: Account, csrf: string): string {
  return `{"id":${jsonString(String(account.id))},"username":${jsonString(account.username)},"csrf":${jsonString(csrf)}}`;
}

/** A token for the web app, in the token endpoint's shape (RFC 6749 section 5.1). */
export function renderAppToken(token: string, expiresInSeconds: number): string {
  return `{"access_token":${jsonString(token)},"token_type":"bearer","expires_in":${expiresInSeconds},"scope":"write"}`;
}

function renderToken(token: TokenSummary, zone: string): string {
  return (
    `{"id":${jsonString(token.id)}` +
    `,"name":${jsonString(token.name)}` +
    `,"scope":${jsonString(token.scope)}` +
    `,"created":${dateOrNull(token.created, zone)}` +
    `,"last_used":${dateOrNull(token.lastUsed, zone)}` +
    `,"expires":${dateOrNull(token.expiresAt, zone)}}`
  );
}

export function renderTokenList(tokens: readonly TokenSummary[], account: Account): string {
  return `{"tokens":[${tokens.map((token) => renderToken(token, account.timezone)).join(',')}]}`;
}

/** A token just made: the secret, this once, next to what the list shows of it. */
export function renderMadeToken(token: string, summary: TokenSummary, account: Account): string {
  return `{"token":${jsonString(token)},"entry":${renderToken(summary, account.timezone)}}`;
}

export function renderConnectedApps(apps: readonly ConnectedApp[], account: Account): string {
  const zone = account.timezone;
  const entries = apps.map(
    (app) =>
      `{"client_id":${jsonString(app.clientId)}` +
      `,"name":${jsonString(app.name)}` +
      `,"scope":${jsonString(app.scope)}` +
      `,"allowed":${dateOrNull(app.allowed, zone)}` +
      `,"last_used":${dateOrNull(app.lastUsed, zone)}}`,
  );
  return `{"apps":[${entries.join(',')}]}`;
}
