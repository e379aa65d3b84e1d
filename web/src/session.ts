/** Starting the app for the signed-in account, and signing out (which clears the browser's copy). */
import { useEngine } from './actions.ts';
import { createApi } from './api.ts';
import { LocalStore } from './local-copy.ts';
import { contexts, projects, settings, signedOut, tasks, waiting } from './state.ts';
import { SyncEngine } from './sync.ts';
import { currentToken, forgetToken } from './token.ts';

export const api = createApi(currentToken);

let running: { readonly engine: SyncEngine; readonly store: LocalStore } | null = null;

export async function startSession(): Promise<void> {
  if (currentToken() === null) {
    signedOut.value = 'signed-out';
    return;
  }
  const store = await LocalStore.open();
  const engine = new SyncEngine(api, store);
  running = { engine, store };
  useEngine(engine);
  await engine.start();
}

export async function signOut(): Promise<void> {
  running?.engine.stop();
  useEngine(null);
  await LocalStore.erase(running?.store ?? null);
  running = null;
  forgetToken();
  tasks.value = new Map();
  projects.value = new Map();
  contexts.value = new Map();
  settings.value = null;
  waiting.value = 0;
  signedOut.value = 'signed-out';
}
