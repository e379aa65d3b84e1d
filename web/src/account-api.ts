/**
 * The signed-in browser's own endpoints (`/account/*`, docs/auth.md): the app's token for this
 * session, and what Settings manages (password, tokens, connected apps). They answer to the
 * session cookie, never to a token; every POST is form-encoded and carries the CSRF token the
 * session answer gave. Strings arrive HTML-escaped and dates as wire dates, as from /v1.
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

  /** A form POST with the CSRF token; a refused token (a new session since) is renewed once. */
  async #post(path: string, fields: Readonly<Record<string, string>>): Promise<unknown> {
    for (let attempt = 0; ; attempt += 1) {
      const csrf = await this.#csrfToken();
      if (csrf === null) throw new AccountError(401, 'signed_out', 'not signed in');
      try {
        return await bodyOf(
          await send(path, { method: 'POST', headers: { 'X-CSRF-Token': csrf }, body: new URLSearchParams(fields) }),
        );
      } catch (error) {
        if (attempt > 0 || !(error instanceof AccountError) || error.code !== 'forbidden') throw error;
        this.#csrf = null;
      }
    }
  }
}
