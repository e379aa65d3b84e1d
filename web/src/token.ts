/**
 * Where the app finds its access token. Sign-in (ACCOUNTS.md) leaves it in the tab's session
 * storage under this key; the app never asks for it itself. Signing out removes it.
 */
export const TOKEN_STORAGE_KEY = 'task-service.token';

export function currentToken(): string | null {
  const token = sessionStorage.getItem(TOKEN_STORAGE_KEY);
  return token === null || token === '' ? null : token;
}

export function forgetToken(): void {
  sessionStorage.removeItem(TOKEN_STORAGE_KEY);
}
