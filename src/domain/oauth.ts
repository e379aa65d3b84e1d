import type { Scope } from './account.js';
import type { OAuthClient } from './auth.js';

/** RFC 6749 error codes this server answers with (sections 4.1.2.1, 4.2.2.1 and 5.2). */
export const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'unsupported_response_type',
  'invalid_scope',
  'access_denied',
  'temporarily_unavailable',
  'server_error',
] as const;

export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

/** A refusal of the token or revocation endpoint, answered as `{"error","error_description"}`. */
export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
  ) {
    super(`${code}: ${description}`);
    this.name = 'OAuthError';
  }
}

export type ResponseType = 'code' | 'token';

/** An authorization request that passed every check: what the consent page shows and approves. */
export interface AuthorizeRequest {
  readonly client: OAuthClient;
  readonly responseType: ResponseType;
  readonly redirectUri: string;
  readonly scope: Scope;
  readonly state: string | undefined;
  /** The PKCE S256 challenge; undefined when the (confidential) client sent none. */
  readonly challenge: string | undefined;
}

/** The parameters of `/oauth/authorize`, as received (GET query or the consent form's POST). */
export interface AuthorizeParams {
  readonly response_type?: string | undefined;
  readonly client_id?: string | undefined;
  readonly redirect_uri?: string | undefined;
  readonly state?: string | undefined;
  readonly scope?: string | undefined;
  readonly code_challenge?: string | undefined;
  readonly code_challenge_method?: string | undefined;
}

/**
 * What to do with an authorization request: go on with it, show an error page (unknown client or
 * redirect URI: never redirected to), or send the error back to the client's redirect URI.
 */
export type AuthorizeCheck =
  | { readonly kind: 'ok'; readonly request: AuthorizeRequest }
  | { readonly kind: 'error_page'; readonly message: string }
  | { readonly kind: 'redirect'; readonly location: string };

/** The JSON answer of the token endpoint. */
export interface TokenAnswer {
  readonly access_token: string;
  readonly token_type: 'bearer';
  readonly expires_in: number;
  readonly refresh_token: string;
  readonly scope: Scope;
}

/** Appends parameters to a redirect URI: in the query for codes, in the fragment for tokens. */
export function redirectWith(
  redirectUri: string,
  inFragment: boolean,
  params: Readonly<Record<string, string | undefined>>,
): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) search.append(name, value);
  if (inFragment) return `${redirectUri}#${search.toString()}`;
  return `${redirectUri}${redirectUri.includes('?') ? '&' : '?'}${search.toString()}`;
}
