import { useSignal } from '@preact/signals';
import { account } from '../session.ts';
import { settings } from '../state.ts';
import { failureMessage } from './account-status.ts';

/** Where CalDAV clients connect (CALDAV.md): the service's own origin, path /dav/. */
function calDavAddress(): string {
  return `${window.location.origin}/dav/`;
}

/** How to connect each client, in a few steps (docs/caldav.md says the same, at more length). */
const GUIDES: readonly { readonly client: string; readonly steps: readonly string[] }[] = [
  {
    client: 'DAVx5 with Tasks.org or jtx Board (Android)',
    steps: [
      'Install DAVx5 and Tasks.org (or jtx Board).',
      'In DAVx5: add an account, "Login with URL and user name", type the address, your username and an app password.',
      'Turn on the task lists to sync; Tasks.org or jtx Board shows them.',
    ],
  },
  {
    client: 'Thunderbird',
    steps: [
      'Tasks: New Calendar, On the Network.',
      'Type your username and the address, then the app password when asked.',
      'Pick the lists to subscribe to.',
    ],
  },
  {
    client: 'Apple Reminders (iPhone, iPad, Mac)',
    steps: [
      'Settings, Apps, Reminders (or Calendar), Accounts, Add Account, Other, Add CalDAV Account.',
      'Server: the address; user name; password: an app password.',
      'Reminders shows your lists (flat: subtasks appear as tasks of their own).',
    ],
  },
  {
    client: 'vdirsyncer with todoman (terminal)',
    steps: [
      'In the vdirsyncer config, a storage of type "caldav" with url = the address, your username and an app password.',
      'Run vdirsyncer discover, then vdirsyncer sync; point todoman at the synced folder.',
    ],
  },
];

/**
 * What a phone or desktop app needs to sync through CalDAV: the address, the username, and an app
 * password made here and shown once (a write token of ACCOUNTS.md section 4, listed under Tokens).
 */
export function PhonesSection() {
  const made = useSignal<string | null>(null);
  const status = useSignal<string | null>(null);
  const username = settings.value?.username ?? '';

  const make = async (form: HTMLFormElement): Promise<void> => {
    const device = String(new FormData(form).get('device') ?? '').trim();
    try {
      const answer = await account.makeToken({ name: device, scope: 'write', expires_in_days: 'never' });
      made.value = answer.token;
      status.value = `App password for ${device} made: it is listed under Tokens, where it can be revoked.`;
      form.reset();
    } catch (error) {
      status.value = failureMessage('No app password made', error);
    }
  };

  return (
    <section class="settings-section" aria-labelledby="phones-heading">
      <h2 id="phones-heading">Phones and desktop apps</h2>
      <p class="hint">
        Task apps that speak CalDAV sync with your tasks: type these into the app. Use an app password, never the
        password you sign in with.
      </p>
      <label class="field">
        <span>Address</span>
        <input type="text" readOnly value={calDavAddress()} onFocus={(event) => event.currentTarget.select()} />
      </label>
      <label class="field">
        <span>Username</span>
        <input type="text" readOnly value={username} onFocus={(event) => event.currentTarget.select()} />
      </label>
      {made.value !== null && (
        <div class="new-token">
          <label class="field">
            <span>App password: copy it into the app now, it is not shown again</span>
            <input type="text" readOnly value={made.value} onFocus={(event) => event.currentTarget.select()} />
          </label>
          <button type="button" onClick={() => (made.value = null)}>
            Done
          </button>
        </div>
      )}
      <form
        class="new-token-form"
        onSubmit={(event) => {
          event.preventDefault();
          void make(event.currentTarget);
        }}
      >
        <label class="field">
          <span>Device name</span>
          <input name="device" type="text" maxLength={100} required placeholder="e.g. my phone" />
        </label>
        <div class="buttons">
          <button type="submit">Make an app password</button>
        </div>
      </form>
      <p role="status" class="status">
        {status.value}
      </p>
      {GUIDES.map((guide) => (
        <details key={guide.client}>
          <summary>{guide.client}</summary>
          <ol>
            {guide.steps.map((step) => (
              <li key={step}>{step}</li>
            ))}
          </ol>
        </details>
      ))}
    </section>
  );
}
