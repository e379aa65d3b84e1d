import { AccountError, isSignedOut } from '../../../src/client/index.js';
import { isUnavailable } from '../api.ts';

/**
 * What to tell the person when an account call failed: the server's own message (written for
 * people), or that it cannot be reached. Without a session (it ended, or the tab's token came from
 * elsewhere) the tasks still sync with the token; managing the account needs a new sign-in.
 */
export function failureMessage(action: string, error: unknown): string {
  if (isSignedOut(error)) return `${action}: this browser is not signed in; sign in again to manage your account.`;
  if (isUnavailable(error)) return `${action}: the server cannot be reached.`;
  if (error instanceof AccountError) return `${action}: ${error.message}.`;
  throw error;
}
