/**
 * Where the app keeps its access token: the tab's session storage, gone when the tab closes. The
 * app asks the browser's session for one (session.ts) when the tab has none; signing out removes it.
 */
export const TOKEN_STORAGE_KEY = 'task-service.token';

export function currentToken(): string | null {
  const token = sessionStorage.getItem(TOKEN_STORAGE_KEY);
  return token === null || token === '' ? null : token;
}

export function forgetToken(): void {
  sessionStorage.removeItem(TOKEN_STORAGE_KEY);
}

export function rememberToken(token: string): void {
  sessionStorage.setItem(TOKEN_STORAGE_KEY, token);
}
