/**
 * What `task-service login` keeps in credentials.json: the service's URL and a token, and after a
 * browser sign-in also the refresh token, the client id and the expiry, so the access token
 * (which lives a day) is renewed before a command needs it.
 */
import { refreshTokens, type OAuthTokens } from '../../client/index.js';
import { CREDENTIALS_FILE, readJsonFile, writeJsonFile } from './files.js';

/** What `login` keeps: a pasted token, or the tokens of a browser sign-in with what renews them. */
export interface Credentials {
  readonly url: string;
  readonly token: string;
  readonly oauth?: { readonly clientId: string; readonly refreshToken: string; readonly expiresAt: string };
}

function credentialsOf(stored: unknown): Credentials | undefined {
  if (typeof stored !== 'object' || stored === null) return undefined;
  if (!('url' in stored && typeof stored.url === 'string' && 'token' in stored && typeof stored.token === 'string'))
    return undefined;
  const { url, token } = stored;
  if (
    'client_id' in stored &&
    typeof stored.client_id === 'string' &&
    'refresh_token' in stored &&
    typeof stored.refresh_token === 'string' &&
    'expires_at' in stored &&
    typeof stored.expires_at === 'string'
  ) {
    return {
      url,
      token,
      oauth: { clientId: stored.client_id, refreshToken: stored.refresh_token, expiresAt: stored.expires_at },
    };
  }
  return { url, token };
}

export async function saveCredentials(dir: string, credentials: Credentials): Promise<void> {
  const { url, token, oauth } = credentials;
  await writeJsonFile(
    dir,
    CREDENTIALS_FILE,
    oauth === undefined
      ? { url, token }
      : { url, token, client_id: oauth.clientId, refresh_token: oauth.refreshToken, expires_at: oauth.expiresAt },
  );
}

export function credentialsFromTokens(url: string, clientId: string, tokens: OAuthTokens): Credentials {
  return {
    url,
    token: tokens.accessToken,
    oauth: { clientId, refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt.toISOString() },
  };
}

/** Renew an access token this close to its expiry, so a command never starts with one about to lapse. */
const RENEW_BEFORE_MS = 5 * 60 * 1000;

/** The credentials in the folder, or undefined when there are none (not logged in). */
export async function storedCredentials(dir: string): Promise<Credentials | undefined> {
  return credentialsOf(await readJsonFile(dir, CREDENTIALS_FILE));
}

/** The credentials, with a browser sign-in's access token renewed (and kept) when it is (nearly) expired. */
export async function renewedIfDue(dir: string, stored: Credentials): Promise<Credentials> {
  if (stored.oauth === undefined || Date.parse(stored.oauth.expiresAt) - Date.now() > RENEW_BEFORE_MS) return stored;
  const renewed = credentialsFromTokens(
    stored.url,
    stored.oauth.clientId,
    await refreshTokens(stored.url, { clientId: stored.oauth.clientId, refreshToken: stored.oauth.refreshToken }),
  );
  await saveCredentials(dir, renewed);
  return renewed;
}
