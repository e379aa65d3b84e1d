import type { Account } from '../../domain/account.js';
import type { ConnectedApp, TokenSummary } from '../../domain/auth.js';
import type { Micros } from '../../domain/time.js';
import type { ChangeCounts, ImportReport } from '../../service/portability.js';
import type { ExportFormat } from '../../domain/portable.js';
import type {
  AccountErrorBody,
  AccountErrorCode,
  AccountSessionBody,
  AppTokenBody,
  ConnectedAppListBody,
  ImportReportBody,
  MadeTokenBody,
  PersonalTokenBody,
  PersonalTokenListBody,
} from './account-shapes.js';
import { JSON_CONTENT_TYPE } from './content-type.js';
import { formatDateTime } from './dates.js';
import { escapeHtml } from './escape.js';

/**
 * The answers of the signed-in browser's account endpoints (`/account/*`, docs/auth.md), built as
 * the types of account-shapes.ts: JSON in the API's own conventions (every string HTML-escaped,
 * dates `YYYY-MM-DD HH:MM:SS +hhmm` in the account's zone), so a client reads them like `/v1`.
 * Never a token's hash; a token itself only in the one answer that made it. JSON.stringify writes
 * non-ASCII text as it is (the wire is UTF-8), as jsonString does for /v1.
 */

/** The HTTP status of each refusal. */
export const ACCOUNT_ERROR_STATUS: { readonly [Code in AccountErrorCode]: number } = {
  signed_out: 401,
  forbidden: 403,
  invalid: 400,
  not_found: 404,
  too_large: 413,
  server_error: 500,
};

export function renderAccountError(code: AccountErrorCode, message: string): string {
  const body: AccountErrorBody = { error: code, message: escapeHtml(message) };
  return JSON.stringify(body);
}

function dateOrNull(us: Micros | null, zone: string): string | null {
  return us === null ? null : formatDateTime(us, zone);
}

/** Who is signed in, and the CSRF token the browser sends back with every POST. */
export function renderSessionAnswer(account: Account, csrf: string): string {
  const body: AccountSessionBody = {
    id: String(account.id),
    username: escapeHtml(account.username),
    csrf: escapeHtml(csrf),
  };
  return JSON.stringify(body);
}

/** A token for the web app, in the token endpoint's shape (RFC 6749 section 5.1). */
export function renderAppToken(token: string, expiresInSeconds: number): string {
  const body: AppTokenBody = {
    access_token: escapeHtml(token),
    token_type: 'bearer',
    expires_in: expiresInSeconds,
    scope: 'write',
  };
  return JSON.stringify(body);
}

function tokenBody(token: TokenSummary, zone: string): PersonalTokenBody {
  return {
    id: escapeHtml(token.id),
    name: escapeHtml(token.name),
    scope: token.scope,
    created: formatDateTime(token.created, zone),
    last_used: dateOrNull(token.lastUsed, zone),
    expires: dateOrNull(token.expiresAt, zone),
  };
}

export function renderTokenList(tokens: readonly TokenSummary[], account: Account): string {
  const body: PersonalTokenListBody = { tokens: tokens.map((token) => tokenBody(token, account.timezone)) };
  return JSON.stringify(body);
}

/** A token just made: the secret, this once, next to what the list shows of it. */
export function renderMadeToken(token: string, summary: TokenSummary, account: Account): string {
  const body: MadeTokenBody = { token: escapeHtml(token), entry: tokenBody(summary, account.timezone) };
  return JSON.stringify(body);
}

export function renderConnectedApps(apps: readonly ConnectedApp[], account: Account): string {
  const zone = account.timezone;
  const body: ConnectedAppListBody = {
    apps: apps.map((app) => ({
      client_id: escapeHtml(app.clientId),
      name: escapeHtml(app.name),
      scope: app.scope,
      allowed: formatDateTime(app.allowed, zone),
      last_used: dateOrNull(app.lastUsed, zone),
    })),
  };
  return JSON.stringify(body);
}

function countsBody(counts: ChangeCounts): ImportReportBody['tasks'] {
  return { created: counts.created, updated: counts.updated, unchanged: counts.unchanged };
}

/** What an import changed, or would change in a dry run (Settings' preview). */
export function renderImportReport(report: ImportReport): string {
  const body: ImportReportBody = {
    dry_run: report.dryRun,
    settings_changed: report.settingsChanged,
    projects: countsBody(report.projects),
    contexts: countsBody(report.contexts),
    tasks: countsBody(report.tasks),
    changed: report.changed.map((record) => ({
      kind: record.kind,
      name: escapeHtml(record.name),
      change: record.change,
    })),
    unmapped: report.unmapped.map(escapeHtml),
  };
  return JSON.stringify(body);
}

/** The media type of each export file. */
export const EXPORT_MEDIA_TYPES: { readonly [Format in ExportFormat]: string } = {
  json: JSON_CONTENT_TYPE,
  ics: 'text/calendar; charset=utf-8',
};

/**
 * A download, never shown in the tab, named by the day in the account's zone:
 * `task-service-2026-11-24.json`. The name holds nothing the person typed, so it needs no quoting rules.
 */
export function exportDisposition(format: ExportFormat, exported: Micros, zone: string): string {
  const day = formatDateTime(exported, zone).slice(0, 10);
  return `attachment; filename="task-service-${day}.${format}"`;
}
