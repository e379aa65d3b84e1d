/**
 * The signed-in browser's own endpoints (`/account/*`, docs/auth.md), for a web app the service
 * serves: who is signed in, a token of this browser's session for `/v1`, what a settings page
 * manages (password, personal tokens, connected apps, export and import), and signing out. They
 * answer to the session cookie the sign-in pages set, never to a token: in a page of the same
 * origin the browser sends it by itself. Every POST carries the CSRF token the session answer
 * gave; a refused one (a new session since) is asked for again, once. The answers' types come
 * from the server's zod schemas (src/http/wire/account-shapes.ts), with every string unescaped
 * once and every date-time a Date.
 */
import type { z } from 'zod';
import type { ExportFormat, ImportFormat } from '../domain/portable.js';
import type {
  accountErrorBody,
  accountSession,
  appTokenAnswer,
  connectedApp,
  importReport,
  madeToken,
  makeTokenForm,
  personalToken,
} from '../http/wire/account-shapes.js';
import { unescapeHtml } from './escape.js';
import { decodeRecord, type Decoded } from './records.js';
import type { Fetch } from './transport.js';

export type { ExportFormat, ImportFormat } from '../domain/portable.js';

/** The date-time fields of each answer; the test suite checks them against the answer shapes. */
export const ACCOUNT_DATE_FIELDS = {
  token: ['created', 'last_used', 'expires'],
  app: ['allowed', 'last_used'],
} as const satisfies {
  token: readonly (keyof z.output<typeof personalToken>)[];
  app: readonly (keyof z.output<typeof connectedApp>)[];
};

/** Why an account endpoint refused: one code per HTTP status. */
export type AccountErrorCode = z.output<typeof accountErrorBody>['error'];
/** Who is signed in in this browser: the account's id (as `/v1/settings` gives it) and username. */
export type SignedIn = Omit<z.output<typeof accountSession>, 'csrf'>;
/** One of the person's own tokens, as a settings page lists it: never the token itself. */
export type PersonalToken = Decoded<z.output<typeof personalToken>, (typeof ACCOUNT_DATE_FIELDS.token)[number]>;
/** A token just made: the token itself, in this answer only, and its entry in the list. */
export type MadeToken = Omit<z.output<typeof madeToken>, 'entry'> & { readonly entry: PersonalToken };
/** An OAuth client the account allowed. */
export type ConnectedApp = Decoded<z.output<typeof connectedApp>, (typeof ACCOUNT_DATE_FIELDS.app)[number]>;
/** What an import changed, or would change in a dry run. */
export type ImportReport = z.output<typeof importReport>;
/** A new personal token: `scope` without it `write`; `expires_in_days` a number of days, or `never` (the default). */
export type TokenRequest = Pick<z.input<typeof makeTokenForm>, 'name' | 'scope' | 'expires_in_days'>;

/** An account endpoint's refusal, with its message written for the person (unescaped). */
export class AccountError extends Error {
  override name = 'AccountError';

  constructor(
    readonly status: number,
    /** Null when the answer was not an account endpoint's error body (a proxy's page, the load shedder's E503). */
    readonly code: AccountErrorCode | null,
    message: string,
  ) {
    super(message);
  }
}

/** Whether the refusal means nobody is signed in in this browser (any more). */
export function isSignedOut(error: unknown): boolean {
  return error instanceof AccountError && error.code === 'signed_out';
}

export interface AccountClientOptions {
  /** The service's address: in a page it serves, `location.origin`. */
  readonly baseUrl: string;
  /** Outside a browser, a fetch that keeps the session cookie. Default: the global fetch. */
  readonly fetch?: Fetch;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function listOf(body: unknown, field: string): unknown[] {
  const list = isRecord(body) ? body[field] : undefined;
  if (!Array.isArray(list)) throw new TypeError(`the service answered without ${field}`);
  return list;
}

function tokenOf(wire: unknown): PersonalToken {
  return decodeRecord<PersonalToken>(wire, ACCOUNT_DATE_FIELDS.token);
}

function accessTokenOf(body: unknown): string {
  return decodeRecord<z.output<typeof appTokenAnswer>>(body, []).access_token;
}

/** The answer's JSON (null for 204 No Content), or its refusal as an AccountError. */
async function answerOf(response: Response): Promise<unknown> {
  if (response.status === 204) return null;
  let body: unknown;
  try {
    body = JSON.parse(await response.text());
  } catch {
    throw new AccountError(response.status, null, `HTTP ${response.status} without a JSON body`);
  }
  if (response.ok) return body;
  if (isRecord(body) && typeof body['error'] === 'string' && typeof body['message'] === 'string') {
    // The code is one of account-shapes.ts's (the OpenAPI tests hold the service to them).
    throw new AccountError(response.status, body['error'] as AccountErrorCode, unescapeHtml(body['message']));
  }
  throw new AccountError(response.status, null, `HTTP ${response.status}`);
}

export class AccountClient {
  readonly #fetch: Fetch;
  readonly #baseUrl: string;
  /** The CSRF token of the session answer; asked for again when the server refuses it. */
  #csrf: string | null = null;

  constructor(options: AccountClientOptions) {
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#baseUrl = options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`;
  }

  #url(path: string): string {
    return new URL(path, this.#baseUrl).href;
  }

  #send(path: string, init: RequestInit): Promise<Response> {
    // Never an answer from the HTTP cache. Node's fetch takes `cache` too, though its types omit it.
    const fresh: RequestInit & { readonly cache: 'no-store' } = {
      ...init,
      cache: 'no-store',
      credentials: 'same-origin',
    };
    return this.#fetch(this.#url(path), fresh);
  }

  async #get(path: string): Promise<unknown> {
    return answerOf(await this.#send(path, { method: 'GET' }));
  }

  /** Who is signed in in this browser; null: nobody. */
  async session(): Promise<SignedIn | null> {
    try {
      const body = decodeRecord<z.output<typeof accountSession>>(await this.#get('account/session'), []);
      this.#csrf = body.csrf;
      return { id: body.id, username: body.username };
    } catch (error) {
      if (isSignedOut(error)) return null;
      throw error;
    }
  }

  /** A token of this session for `/v1` (it ends with the session); null: nobody is signed in. */
  async appToken(): Promise<string | null> {
    try {
      return accessTokenOf(await this.#form('account/app-token', {}));
    } catch (error) {
      if (isSignedOut(error)) return null;
      throw error;
    }
  }

  /** Changes the password; every other session ends. Returns this session's new app token. */
  async changePassword(current: string, next: string): Promise<string> {
    return accessTokenOf(await this.#form('account/password', { current_password: current, new_password: next }));
  }

  async tokens(): Promise<PersonalToken[]> {
    return listOf(await this.#get('account/tokens'), 'tokens').map(tokenOf);
  }

  /** Makes a personal token: the token itself is in this answer only. */
  async makeToken(request: TokenRequest): Promise<MadeToken> {
    const fields: Record<string, string> = {};
    for (const [name, value] of Object.entries(request)) if (typeof value === 'string') fields[name] = value;
    const body = await this.#form('account/tokens', fields);
    const token = decodeRecord<Omit<MadeToken, 'entry'>>(body, []).token;
    return { token, entry: tokenOf(isRecord(body) ? body['entry'] : undefined) };
  }

  async revokeToken(id: string): Promise<void> {
    await this.#form(`account/tokens/${encodeURIComponent(id)}/revoke`, {});
  }

  async apps(): Promise<ConnectedApp[]> {
    return listOf(await this.#get('account/apps'), 'apps').map((app) =>
      decodeRecord<ConnectedApp>(app, ACCOUNT_DATE_FIELDS.app),
    );
  }

  /** Revokes every token the account gave the app, and forgets its consent. */
  async revokeApp(clientId: string): Promise<void> {
    await this.#form(`account/apps/${encodeURIComponent(clientId)}/revoke`, {});
  }

  /** Where the browser downloads the account's data (the session cookie goes with it). */
  exportAddress(format: ExportFormat): string {
    return this.#url(`account/export?format=${format}`);
  }

  /**
   * Imports a file, or with `dryRun` only says what it would change. `name`, the file's name,
   * names the project of a Todoist project's CSV (`Groceries.csv`).
   */
  async importFile(file: Blob, format: ImportFormat, dryRun: boolean, name?: string): Promise<ImportReport> {
    const query = new URLSearchParams({ format, dry_run: dryRun ? '1' : '0', ...(name === undefined ? {} : { name }) });
    const body = await this.#post(`account/import?${query.toString()}`, file, {
      'Content-Type': 'application/octet-stream',
    });
    return decodeRecord<ImportReport>(body, []);
  }

  /** Ends the session on the server (and with it the app's tokens). Nobody signed in: nothing to end. */
  async signOut(): Promise<void> {
    const csrf = await this.#csrfToken();
    if (csrf === null) return;
    // `/logout` answers a form with a redirect to the sign-in page: the caller goes there itself.
    const response = await this.#send('logout', {
      method: 'POST',
      headers: { 'X-CSRF-Token': csrf },
      body: new URLSearchParams(),
      redirect: 'manual',
    });
    // A browser hides the redirect behind an opaque answer; Node's fetch hands it over as it is.
    const redirected = response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400);
    if (!redirected && !response.ok) throw new AccountError(response.status, null, `HTTP ${response.status}`);
  }

  async #csrfToken(): Promise<string | null> {
    if (this.#csrf === null) await this.session();
    return this.#csrf;
  }

  /** A form POST with the CSRF token. */
  #form(path: string, fields: Readonly<Record<string, string>>): Promise<unknown> {
    return this.#post(path, new URLSearchParams(fields), {});
  }

  /** A POST with the CSRF token; a refused token (a new session since) is renewed once. */
  async #post(path: string, body: Blob | URLSearchParams, headers: Readonly<Record<string, string>>): Promise<unknown> {
    for (let attempt = 0; ; attempt += 1) {
      const csrf = await this.#csrfToken();
      if (csrf === null) throw new AccountError(401, 'signed_out', 'not signed in');
      try {
        return await answerOf(
          await this.#send(path, { method: 'POST', headers: { ...headers, 'X-CSRF-Token': csrf }, body }),
        );
      } catch (error) {
        if (attempt > 0 || !(error instanceof AccountError) || error.code !== 'forbidden') throw error;
        this.#csrf = null;
      }
    }
  }
}
