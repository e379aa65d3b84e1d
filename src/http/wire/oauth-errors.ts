import type { OAuthErrorCode } from '../../domain/oauth.js';
import type { OAuthErrorBody } from './oauth-shapes.js';

/**
 * The error body of the `/oauth/*` endpoints: OAuth's own (RFC 6749 section 5.2), because OAuth
 * client libraries read it; `/v1` keeps the `{retcode, retmsg, reqdata}` body.
 */
export function renderOAuthError(code: OAuthErrorCode, description: string): string {
  const body: OAuthErrorBody = { error: code, error_description: description };
  return JSON.stringify(body);
}

/** 401 for a client that failed to authenticate, 429 when throttled, 500 for a failure of ours, 400 for the rest. */
export function oauthErrorStatus(code: OAuthErrorCode): number {
  if (code === 'server_error') return 500;
  if (code === 'invalid_client') return 401;
  if (code === 'temporarily_unavailable') return 429;
  return 400;
}
