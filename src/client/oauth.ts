/**
 * OAuth 2 for an app built on the SDK, as a public client (no secret): the authorization code
 * flow with PKCE (RFC 7636, S256), the one ACCOUNTS.md asks of public clients. The app sends the
 * person to `authorizationUrl`, reads the answer its redirect URI gets with `codeFromRedirect`,
 * and trades the code with `exchangeCode`; `refreshTokens` makes the next access token. Web
 * Crypto and fetch only: Node 20+ and browsers alike.
 */
import type { OAuthErrorBody, OAuthTokenBody } from '../http/wire/oauth-shapes.js';
import type { Fetch } from './transport.js';

/** A refusal: the person denied, the answer was not for this request, or the token endpoint said no. */
export class OAuthRefusal extends Error {
  override name = 'OAuthRefusal';

  constructor(
    /** RFC 6749's code (`access_denied`, `invalid_grant`, …), or `state_mismatch` for an answer to another request. */
    readonly code: string,
    readonly description: string,
  ) {
    super(description === '' ? code : `${code}: ${description}`);
  }
}

export interface OAuthTokens {
  readonly accessToken: string;
  readonly refreshToken: string;
  /** When the access token stops working; `refreshTokens` makes the next one before then. */
  readonly expiresAt: Date;
  readonly scope: 'read' | 'write';
}

export interface Pkce {
  /** Kept by the app until the exchange, never sent before it. */
  readonly verifier: string;
  /** Sent with the authorization request: base64url(SHA-256(verifier)). */
  readonly challenge: string;
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** 32 random bytes as base64url: 43 characters, as RFC 7636 section 4.1 suggests for a verifier. */
function randomText(): string {
  return base64url(globalThis.crypto.getRandomValues(new Uint8Array(32)));
}

/** A new verifier and its S256 challenge. */
export async function makePkce(): Promise<Pkce> {
  const verifier = randomText();
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return { verifier, challenge: base64url(new Uint8Array(digest)) };
}

/** A new `state`: unguessable, so an answer to someone else's request is told apart. */
export function makeState(): string {
  return randomText();
}

export interface AuthorizationRequest {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly state: string;
  readonly challenge: string;
  readonly scope?: 'read' | 'write';
}

/** The address to send the person to: the service's sign-in and consent pages. */
export function authorizationUrl(baseUrl: string, request: AuthorizationRequest): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    state: request.state,
    scope: request.scope ?? 'write',
    code_challenge: request.challenge,
    code_challenge_method: 'S256',
  });
  return `${baseUrl.replace(/\/$/, '')}/oauth/authorize?${query.toString()}`;
}

/**
 * The code in the answer the redirect URI got, or an OAuthRefusal: the person denied
 * (`access_denied`), another error, or a `state` that is not this request's.
 */
export function codeFromRedirect(answer: URL, expectedState: string): string {
  const state = answer.searchParams.get('state');
  if (state !== expectedState) {
    throw new OAuthRefusal('state_mismatch', 'the answer is not for this authorization request (its state differs)');
  }
  const error = answer.searchParams.get('error');
  if (error !== null) throw new OAuthRefusal(error, answer.searchParams.get('error_description') ?? '');
  const code = answer.searchParams.get('code');
  if (code === null || code === '') throw new OAuthRefusal('invalid_request', 'the answer has no code');
  return code;
}

function isTokenBody(value: unknown): value is OAuthTokenBody {
  return (
    typeof value === 'object' &&
    value !== null &&
    'access_token' in value &&
    typeof value.access_token === 'string' &&
    'refresh_token' in value &&
    typeof value.refresh_token === 'string' &&
    'expires_in' in value &&
    typeof value.expires_in === 'number' &&
    'scope' in value &&
    (value.scope === 'read' || value.scope === 'write')
  );
}

function isErrorBody(value: unknown): value is OAuthErrorBody {
  return typeof value === 'object' && value !== null && 'error' in value && typeof value.error === 'string';
}

export interface TokenEndpointOptions {
  readonly fetch?: Fetch;
}

async function tokenRequest(baseUrl: string, form: Record<string, string>, options: TokenEndpointOptions) {
  const send = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const response = await send(`${baseUrl.replace(/\/$/, '')}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form).toString(),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (response.ok && isTokenBody(body)) {
    return {
      accessToken: body.access_token,
      refreshToken: body.refresh_token,
      expiresAt: new Date(Date.now() + body.expires_in * 1000),
      scope: body.scope,
    } satisfies OAuthTokens;
  }
  if (isErrorBody(body)) throw new OAuthRefusal(body.error, body.error_description);
  throw new OAuthRefusal('server_error', `the token endpoint answered HTTP ${response.status}`);
}

/** Trades the code for tokens, proving with the verifier that this app asked for it. */
export function exchangeCode(
  baseUrl: string,
  exchange: {
    readonly clientId: string;
    readonly code: string;
    readonly redirectUri: string;
    readonly verifier: string;
  },
  options: TokenEndpointOptions = {},
): Promise<OAuthTokens> {
  return tokenRequest(
    baseUrl,
    {
      grant_type: 'authorization_code',
      client_id: exchange.clientId,
      code: exchange.code,
      redirect_uri: exchange.redirectUri,
      code_verifier: exchange.verifier,
    },
    options,
  );
}

/** The next access token (and refresh token: the one given is spent). */
export function refreshTokens(
  baseUrl: string,
  refresh: { readonly clientId: string; readonly refreshToken: string },
  options: TokenEndpointOptions = {},
): Promise<OAuthTokens> {
  return tokenRequest(
    baseUrl,
    { grant_type: 'refresh_token', client_id: refresh.clientId, refresh_token: refresh.refreshToken },
    options,
  );
}

/**
 * Revokes a token of this client (RFC 7009): a refresh token ends its whole grant, every access
 * token made from it included. An unknown token is answered alike, so this cannot tell.
 */
export async function revokeToken(
  baseUrl: string,
  revocation: { readonly clientId: string; readonly token: string },
  options: TokenEndpointOptions = {},
): Promise<void> {
  const send = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const response = await send(`${baseUrl.replace(/\/$/, '')}/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: revocation.token, client_id: revocation.clientId }).toString(),
  });
  if (response.ok) return;
  let body: unknown;
  try {
    body = JSON.parse(await response.text());
  } catch {
    body = undefined;
  }
  if (isErrorBody(body)) throw new OAuthRefusal(body.error, body.error_description);
  throw new OAuthRefusal('server_error', `the revocation endpoint answered HTTP ${response.status}`);
}
