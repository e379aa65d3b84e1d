/**
 * The signed-in browser's own endpoints (`/account/*`, docs/auth.md): the app's token for this
 * session, and what Settings manages (password, tokens, connected apps, export and import). They
 * answer to the session cookie, never to a token; every POST carries the CSRF token the session
 * answer gave, and is form-encoded but for an import, which sends the file itself. Strings arrive HTML-escaped and dates as wire dates, as from /v1.
 */
import { parseWireDate, unescapeHtml } from '../../src/client/index.js';
import { UnavailableError } from './api.ts';

export interface SessionInfo {
  /** The account's id, as `/v1/settings` gives it. */
  readonly id: string;
  readonly username: string;
}

export type TokenScope = 'read' | 'write';

export interface TokenEntry {
  readonly id: string;
  readonly name: string;
  readonly scope: TokenScope;
  readonly created: number;
  readonly lastUsed: number | null;
  readonly expires: number | null;
}

export interface ConnectedApp {
  readonly clientId: string;
  readonly name: string;
  readonly scope: TokenScope;
  readonly allowed: number;
  readonly lastUsed: number | null;
}

export type ExportFormat = 'json' | 'ics';
export type ImportFormat = 'json' | 'ics' | 'todoist';

export interface ChangeCounts {
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
}

/** A record an import creates or updates (or would). */
export interface ImportedRecord {
  readonly kind: 'project' | 'context' | 'task';
  readonly name: string;
  readonly change: 'created' | 'updated';
}

/** What an import changed, or would change in a dry run. */
export interface ImportReport {
  readonly dryRun: boolean;
  readonly settingsChanged: boolean;
  readonly projects: ChangeCounts;
  readonly contexts: ChangeCounts;
  readonly tasks: ChangeCounts;
  /** The first records created or updated (the server names at most 100). */
  readonly changed: readonly ImportedRecord[];
  /** What the file held that nothing takes, one line each. */
  readonly unmapped: readonly string[];
}

export interface NewTokenRequest {
  readonly name: string;
  readonly scope: TokenScope;
  /** Null: never expires. */
  readonly expiresInDays: number | null;
}

/** The server refused: `message` is written for the person and shown as it is. */
export class AccountError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(record: Json, field: string): string {
  const value = record[field];
  if (typeof value !== 'string') throw new Error(`expected text in ${field}`);
  return unescapeHtml(value);
}

function scopeOf(record: Json): TokenScope {
  const scope = record['scope'];
  if (scope !== 'read' && scope !== 'write') throw new Error('expected a scope');
  return scope;
}

function dateOrNull(record: Json, field: string): number | null {
  const value = record[field];
  return typeof value === 'string' ? parseWireDate(value).getTime() : null;
}

function readToken(record: unknown): TokenEntry {
  if (!isObject(record)) throw new Error('expected a token');
  return {
    id: text(record, 'id'),
    name: text(record, 'name'),
    scope: scopeOf(record),
    created: parseWireDate(text(record, 'created')).getTime(),
    lastUsed: dateOrNull(record, 'last_used'),
    expires: dateOrNull(record, 'expires'),
  };
}

function readApp(record: unknown): ConnectedApp {
  if (!isObject(record)) throw new Error('expected an app');
  return {
    clientId: text(record, 'client_id'),
    name: text(record, 'name'),
    scope: scopeOf(record),
    allowed: parseWireDate(text(record, 'allowed')).getTime(),
    lastUsed: dateOrNull(record, 'last_used'),
  };
}

function count(record: Json, field: string): number {
  const value = record[field];
  if (typeof value !== 'number') throw new Error(`expected a count in ${field}`);
  return value;
}

function countsOf(body: Json, field: string): ChangeCounts {
  const record = body[field];
  if (!isObject(record)) throw new Error(`expected the counts of ${field}`);
  return {
    created: count(record, 'created'),
    updated: count(record, 'updated'),
    unchanged: count(record, 'unchanged'),
  };
}

function readImported(record: unknown): ImportedRecord {
  if (!isObject(record)) throw new Error('expected a changed record');
  const { kind, change } = record;
  if (kind !== 'project' && kind !== 'context' && kind !== 'task') throw new Error('expected a kind');
  if (change !== 'created' && change !== 'updated') throw new Error('expected a change');
  return { kind, name: text(record, 'name'), change };
}

function readUnmapped(line: unknown): string {
  if (typeof line !== 'string') throw new Error('expected a line of what was not mapped');
  return unescapeHtml(line);
}

function readImportReport(body: unknown): ImportReport {
  if (!isObject(body)) throw new Error('expected an import report');
  return {
    dryRun: body['dry_run'] === true,
    settingsChanged: body['settings_changed'] === true,
    projects: countsOf(body, 'projects'),
    contexts: countsOf(body, 'contexts'),
    tasks: countsOf(body, 'tasks'),
    changed: listOf(body, 'changed', readImported),
    unmapped: listOf(body, 'unmapped', readUnmapped),
  };
}

function listOf<T>(body: unknown, field: string, read: (record: unknown) => T): T[] {
  const list = isObject(body) ? body[field] : undefined;
  if (!Array.isArray(list)) throw new Error(`expected a list of ${field}`);
  return list.map(read);
}

function accessTokenOf(body: unknown): string {
  if (!isObject(body)) throw new Error('expected a token answer');
  return text(body, 'access_token');
}

async function send(path: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(path, { cache: 'no-store', credentials: 'same-origin', ...init });
  } catch (error) {
    throw new UnavailableError(error instanceof Error ? error.message : 'network error');
  }
}

/** The answer's JSON, or its refusal as an AccountError (502/503 and no answer: unavailable). */
async function bodyOf(response: Response): Promise<unknown> {
  if (response.status === 502 || response.status === 503) throw new UnavailableError(`HTTP ${response.status}`);
  if (response.status === 204) return null;
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new UnavailableError(`HTTP ${response.status} without a JSON body`);
  }
  if (!response.ok) {
    if (isObject(body) && typeof body['error'] === 'string' && typeof body['message'] === 'string') {
      throw new AccountError(response.status, body['error'], unescapeHtml(body['message']));
    }
    throw new UnavailableError(`HTTP ${response.status}`);
  }
  return body;
}

/** Whether the refusal means nobody is signed in in this browser (any more). */
export function isSignedOut(error: unknown): boolean {
  return error instanceof AccountError && error.code === 'signed_out';
}

export class AccountApi {
  /** The CSRF token of the session answer; asked for again when the server refuses it. */
  #csrf: string | null = null;

  /** Who is signed in in this browser; null: nobody. */
  async session(): Promise<SessionInfo | null> {
    try {
      const body = await bodyOf(await send('/account/session', { method: 'GET' }));
      if (!isObject(body)) throw new Error('expected the session');
      this.#csrf = text(body, 'csrf');
      return { id: text(body, 'id'), username: text(body, 'username') };
    } catch (error) {
      if (isSignedOut(error)) return null;
      throw error;
    }
  }

  /** A token of this session for the app; null: nobody is signed in. */
  async appToken(): Promise<string | null> {
    try {
      return accessTokenOf(await this.#post('/account/app-token', {}));
    } catch (error) {
      if (isSignedOut(error)) return null;
      throw error;
    }
  }

  /** Changes the password; every other session ends. Returns this session's new app token. */
  async changePassword(current: string, next: string): Promise<string> {
    return accessTokenOf(await this.#post('/account/password', { current_password: current, new_password: next }));
  }

  async tokens(): Promise<TokenEntry[]> {
    return listOf(await bodyOf(await send('/account/tokens', { method: 'GET' })), 'tokens', readToken);
  }

  /** Makes a token: the token itself is in this answer only. */
  async makeToken(request: NewTokenRequest): Promise<{ readonly token: string; readonly entry: TokenEntry }> {
    const body = await this.#post('/account/tokens', {
      name: request.name,
      scope: request.scope,
      expires_in_days: request.expiresInDays === null ? 'never' : String(request.expiresInDays),
    });
    if (!isObject(body)) throw new Error('expected the new token');
    return { token: text(body, 'token'), entry: readToken(body['entry']) };
  }

  async revokeToken(id: string): Promise<void> {
    await this.#post(`/account/tokens/${encodeURIComponent(id)}/revoke`, {});
  }

  async apps(): Promise<ConnectedApp[]> {
    return listOf(await bodyOf(await send('/account/apps', { method: 'GET' })), 'apps', readApp);
  }

  async revokeApp(clientId: string): Promise<void> {
    await this.#post(`/account/apps/${encodeURIComponent(clientId)}/revoke`, {});
  }

  /** Where the browser downloads the account's data (the session cookie goes with it). */
  exportAddress(format: ExportFormat): string {
    return `/account/export?format=${format}`;
  }

  /** Imports a file, or with `dryRun` only says what it would change. */
  async importFile(file: Blob, name: string, format: ImportFormat, dryRun: boolean): Promise<ImportReport> {
    const query = new URLSearchParams({ format, dry_run: dryRun ? '1' : '0', name });
    return readImportReport(
      await this.#send(`/account/import?${query.toString()}`, file, { 'Content-Type': 'application/octet-stream' }),
    );
  }

  /** Ends the session on the server (and with it the app's tokens). Nobody signed in: nothing to end. */
  async signOut(): Promise<void> {
    const csrf = await this.#csrfToken();
    if (csrf === null) return;
    // `/logout` answers a form with a redirect to the sign-in page; the app goes there itself.
    const response = await send('/logout', {
      method: 'POST',
      headers: { 'X-CSRF-Token': csrf },
      body: new URLSearchParams(),
      redirect: 'manual',
    });
    if (response.type !== 'opaqueredirect' && !response.ok) throw new UnavailableError(`HTTP ${response.status}`);
  }

  async #csrfToken(): Promise<string | null> {
    if (this.#csrf === null) await this.session();
    return this.#csrf;
  }

  /** A form POST with the CSRF token. */
  #post(path: string, fields: Readonly<Record<string, string>>): Promise<unknown> {
    return this.#send(path, new URLSearchParams(fields), {});
  }

  /** A POST with the CSRF token; a refused token (a new session since) is renewed once. */
  async #send(path: string, body: BodyInit, headers: Readonly<Record<string, string>>): Promise<unknown> {
    for (let attempt = 0; ; attempt += 1) {
      const csrf = await this.#csrfToken();
      if (csrf === null) throw new AccountError(401, 'signed_out', 'not signed in');
      try {
        return await bodyOf(await send(path, { method: 'POST', headers: { ...headers, 'X-CSRF-Token': csrf }, body }));
      } catch (error) {
        if (attempt > 0 || !(error instanceof AccountError) || error.code !== 'forbidden') throw error;
        this.#csrf = null;
      }
    }
  }
}
