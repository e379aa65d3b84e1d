import { useEffect } from 'preact/hooks';
import { signInAddress, signOut } from '../session.ts';
import {
  currentViewName,
  helpOpen,
  menuOpen,
  notice,
  online,
  openId,
  listable,
  ready,
  route,
  search,
  selectedId,
  signedOut,
  signingIn,
  waiting,
} from '../state.ts';
import { savedSearches } from '../saved-searches.ts';
import { routeOf } from '../views.ts';
import { Details } from './Details.tsx';
import { Help } from './Help.tsx';
import { onKeyDown } from './keyboard.ts';
import { ListedAnewNotice } from './ListedAnewNotice.tsx';
import { Nav } from './Nav.tsx';
import { QuickAddField } from './QuickAddField.tsx';
import { LabelsView } from './LabelsView.tsx';
import { SearchSave } from './SearchSave.tsx';
import { SettingsView } from './SettingsView.tsx';
import { TaskList } from './TaskList.tsx';
import { ReminderAlerts } from './ReminderAlerts.tsx';
import { Toast } from './Toast.tsx';
import '../theme.ts';

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
  menuOpen.value = false;
  selectedId.value = null;
  search.value = route.value.kind === 'search' ? route.value.query : '';
}

/** The view's name; a saved search's is the name it was saved under. */
function title(): string {
  const current = route.value;
  if (current.kind !== 'search') return currentViewName.value;
  return savedSearches.value.find((saved) => saved.query === current.query)?.name ?? 'Search';
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

  // What the benchmark reads (tools/bench/web.ts): when the list first shows, and when the
  // first listing is complete.
  useEffect(() => {
    if (listable.value && performance.getEntriesByName('inbox-shown').length === 0) performance.mark('inbox-shown');
  }, [listable.value]);
  useEffect(() => {
    if (ready.value) performance.mark('all-listed');
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

  const isSettings = route.value.kind === 'settings' || route.value.kind === 'labels';
  return (
    <div class={openId.value === null ? 'app' : 'app with-details'}>
      <Nav />
      {menuOpen.value && (
        <button
          type="button"
          class="scrim phone-only"
          aria-label="Close menu"
          onClick={() => (menuOpen.value = false)}
        />
      )}
      <main>
        <header class="view-header">
          <button
            type="button"
            class="icon-button phone-only"
            aria-expanded={menuOpen.value}
            aria-controls="main-nav"
            onClick={() => (menuOpen.value = !menuOpen.value)}
          >
            <svg width="20" height="20" viewBox="0 0 20 20" aria-hidden="true">
              <path d="M3 5h14M3 10h14M3 15h14" stroke="currentColor" stroke-width="2" stroke-linecap="round" />
            </svg>
            <span class="visually-hidden">Menu</span>
          </button>
          <h1>{title()}</h1>
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
          {!isSettings && <SearchSave />}
          <button
            type="button"
            class="icon-button"
            aria-label="Keyboard shortcuts"
            onClick={() => (helpOpen.value = true)}
          >
            ?
          </button>
        </header>
        <Banner />
        <Notice />
        <ListedAnewNotice />
        {route.value.kind === 'labels' ? (
          <LabelsView />
        ) : isSettings ? (
          <SettingsView />
        ) : (
          <>
            <QuickAddField />
            {listable.value ? <TaskList /> : <p class="empty">Loading…</p>}
          </>
        )}
      </main>
      <Details />
      <Help />
      <Toast />
      <ReminderAlerts />
    </div>
  );
}
