import { useEffect } from 'preact/hooks';
import { signInAddress, signOut } from '../session.ts';
import {
  currentViewName,
  helpOpen,
  notice,
  online,
  openId,
  ready,
  route,
  search,
  selectedId,
  signedOut,
  signingIn,
  waiting,
} from '../state.ts';
import { routeOf } from '../views.ts';
import { Details } from './Details.tsx';
import { Help } from './Help.tsx';
import { onKeyDown } from './keyboard.ts';
import { ListedAnewNotice } from './ListedAnewNotice.tsx';
import { Nav } from './Nav.tsx';
import { QuickAddField } from './QuickAddField.tsx';
import { SettingsView } from './SettingsView.tsx';
import { TaskList } from './TaskList.tsx';

const SIGNED_OUT_MESSAGES = {
  'signed-out': 'You are signed out. This browser keeps none of your tasks.',
  'session-ended': 'Your session has ended: sign in again to go on. Changes not yet sent are kept until then.',
  offline: 'The server cannot be reached to sign you in. Try again when the network is back.',
} as const;

function followHash(): void {
  if (location.hash === '#/sign-out') {
    void signOut();
    return;
  }
  performance.mark('view-switch');
  route.value = routeOf(location.hash);
  selectedId.value = null;
  search.value = '';
}

function Banner() {
  if (online.value) return null;
  return (
    <p class="offline" role="status">
      offline, {waiting.value} {waiting.value === 1 ? 'change' : 'changes'} waiting
    </p>
  );
}

function Notice() {
  if (notice.value === null) return null;
  return (
    <div class="notice" role="alert">
      <span>{notice.value}</span>
      <button type="button" onClick={() => (notice.value = null)}>
        Dismiss
      </button>
    </div>
  );
}

export function App() {
  useEffect(() => {
    addEventListener('hashchange', followHash);
    addEventListener('keydown', onKeyDown);
    return () => {
      removeEventListener('hashchange', followHash);
      removeEventListener('keydown', onKeyDown);
    };
  }, []);

  useEffect(() => {
    if (ready.value) performance.mark('inbox-shown');
  }, [ready.value]);

  if (signingIn.value && signedOut.value === null) {
    return (
      <main class="signed-out">
        <h1>Task Service</h1>
        <p role="status">Signing in…</p>
      </main>
    );
  }

  if (signedOut.value !== null) {
    return (
      <main class="signed-out">
        <h1>Task Service</h1>
        <Notice />
        <p>{SIGNED_OUT_MESSAGES[signedOut.value]}</p>
        <p>
          <a href={signInAddress()}>Sign in</a>
        </p>
      </main>
    );
  }

  const isSettings = route.value.kind === 'settings';
  return (
    <div class={openId.value === null ? 'app' : 'app with-details'}>
      <Nav />
      <main>
        <header class="view-header">
          <h1>{currentViewName.value}</h1>
          {!isSettings && (
            <input
              id="search"
              type="search"
              aria-label="Search"
              placeholder="Search  /"
              value={search.value}
              onInput={(event) => {
                performance.mark('search-input');
                search.value = event.currentTarget.value;
              }}
            />
          )}
          <button
            type="button"
            class="help-button"
            aria-label="Keyboard shortcuts"
            onClick={() => (helpOpen.value = true)}
          >
            ?
          </button>
        </header>
        <Banner />
        <Notice />
        <ListedAnewNotice />
        {isSettings ? (
          <SettingsView />
        ) : (
          <>
            <QuickAddField />
            {ready.value ? <TaskList /> : <p class="empty">Loading…</p>}
          </>
        )}
      </main>
      <Details />
      <Help />
    </div>
  );
}
