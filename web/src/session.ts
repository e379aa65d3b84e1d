/**
 * Signing in and out (docs/web.md): the app takes its token from the browser's session (the
 * sign-in pages made it), starts syncing for that account, and signing out ends the session on
 * the server, clears the browser's copy and goes back to the sign-in page.
 */
import { AccountClient } from '../../src/client/index.js';
import { useEngine } from './actions.ts';
import { createApi, fetchFresh, isUnavailable } from './api.ts';
import { LocalStore } from './local-copy.ts';
import { eraseSavedSearches } from './saved-searches.ts';
import { contexts, notice, projects, settings, signedOut, signingIn, tasks, waiting } from './state.ts';
import { SyncEngine } from './sync.ts';
import { currentToken, forgetToken, rememberToken } from './token.ts';

export const api = createApi(currentToken);
/** The signed-in browser's own endpoints (`/account/*`), answering to the session cookie. */
export const account = new AccountClient({ baseUrl: location.origin, fetch: fetchFresh });

let running: { readonly engine: SyncEngine; readonly store: LocalStore } | null = null;

/** The sign-in page, coming back to this view of the app afterwards. */
export function signInAddress(): string {
  return `/login?next=${encodeURIComponent(`/${location.hash}`)}`;
}

function goToSignIn(): void {
  location.assign(signInAddress());
}

/**
 * A token from the browser's session when the tab has none: nobody signed in goes to the sign-in
 * page. A copy left by another account (its session ended without a sign-out) is erased first.
 */
async function obtainToken(store: LocalStore): Promise<boolean> {
  let who;
  try {
    who = await account.session();
  } catch (error) {
    if (!isUnavailable(error)) throw error;
    signedOut.value = 'offline';
    return false;
  }
  if (who === null) {
    goToSignIn();
    return false;
  }
  const token = await account.appToken();
  if (token === null) {
    goToSignIn();
    return false;
  }
  const owner = await store.ownerId();
  if (owner !== null && owner !== who.id) await store.clear();
  rememberToken(token);
  return true;
}

/**
 * The server refused the token (E401): it expired or its session ended. A new one from the
 * session, if the browser is still signed in; false when it is not.
 */
async function renewToken(): Promise<boolean> {
  try {
    const token = await account.appToken();
    if (token === null) return false;
    rememberToken(token);
    return true;
  } catch {
    return false;
  }
}

export async function startSession(): Promise<void> {
  const store = await LocalStore.open();
  if (currentToken() === null) {
    const obtained = await obtainToken(store);
    if (!obtained) {
      store.close();
      return;
    }
    signingIn.value = false;
  }
  const engine = new SyncEngine(api, store, renewToken);
  running = { engine, store };
  useEngine(engine);
  await engine.start();
}

/** Ends the session on the server, deletes the browser's copy and the token, then signs in anew. */
export async function signOut(): Promise<void> {
  running?.engine.stop();
  useEngine(null);
  let ended = true;
  try {
    await account.signOut();
  } catch {
    ended = false;
  }
  await LocalStore.erase(running?.store ?? null);
  eraseSavedSearches();
  running = null;
  forgetToken();
  tasks.value = new Map();
  projects.value = new Map();
  contexts.value = new Map();
  settings.value = null;
  waiting.value = 0;
  if (ended) {
    // The sign-in page says so: "You are signed out."
    location.assign('/login?signed_out=1');
    return;
  }
  // Offline: the browser forgot everything all the same; the session ends after 30 idle days.
  signedOut.value = 'signed-out';
  notice.value = 'The server could not be reached to end the session; this browser keeps nothing of it.';
}
