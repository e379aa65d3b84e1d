import { useSignal } from '@preact/signals';
import { TaskServiceError, UnavailableError, type SettingsBody } from '../api.ts';
import { api } from '../session.ts';
import { settings } from '../state.ts';
import { chooseTheme, theme, type Theme } from '../theme.ts';
import { AppsSection } from './AppsSection.tsx';
import { EditField } from './EditField.tsx';
import { PasswordSection } from './PasswordSection.tsx';
import { PhonesSection } from './PhonesSection.tsx';
import { ExportSection, ImportSection } from './PortabilitySection.tsx';
import { TokensSection } from './TokensSection.tsx';
import { WebhooksSection } from './WebhooksSection.tsx';

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Every IANA zone the browser knows, for the searchable list. */
const ZONES: readonly string[] =
  typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : ['UTC'];

/**
 * Nickname, time zone and week start, saved as they change; then the password, what phones and
 * desktop apps need for CalDAV, the account's tokens and its connected apps (ACCOUNTS.md section 4), and the export and import of its data,
 * through the browser's session.
 */
export function SettingsView() {
  if (settings.value === null) return <p class="empty">Loading settings…</p>;
  return (
    <div class="settings-page">
      <ProfileForm />
      <PasswordSection />
      <PhonesSection />
      <TokensSection />
      <AppsSection />
      <WebhooksSection />
      <ExportSection />
      <ImportSection />
    </div>
  );
}

/**
 * Nickname, time zone and week start, saved as they change. The text fields are not controlled
 * (EditField): each sync round brings the settings anew, and a controlled field was set back to
 * the stored zone under the person's typing, so the change they then made was no change at all
 * and nothing was sent.
 */
function ProfileForm() {
  const status = useSignal<string | null>(null);
  const current = settings.value;
  if (current === null) return null;

  // Every change either reaches the server ("Saved.") or says why it did not: nothing is dropped
  // without a word.
  const save = async (body: SettingsBody): Promise<void> => {
    status.value = 'Saving…';
    try {
      settings.value = await api.postSettings(body);
      status.value = 'Saved.';
    } catch (error) {
      if (error instanceof TaskServiceError) status.value = `Not saved: ${error.retmsg}`;
      else if (error instanceof UnavailableError) status.value = 'Not saved: the server cannot be reached.';
      else status.value = `Not saved: ${error instanceof Error ? error.message : String(error)}`;
    }
  };

  return (
    <form class="settings" onSubmit={(event) => event.preventDefault()}>
      <h2>Account</h2>
      <p>
        Signed in as <strong>{current.username}</strong>.
      </p>
      <label class="field">
        <span>Nickname</span>
        <EditField value={current.nickname} version={0} onCommit={(nickname) => void save({ nickname })} />
      </label>
      <label class="field">
        <span>Time zone</span>
        <EditField
          list="time-zones"
          value={current.timezone}
          version={0}
          onCommit={(text) => {
            const zone = text.trim();
            if (ZONES.includes(zone) || zone === 'UTC') void save({ timezone: zone });
            else status.value = `Not saved: ${zone} is not a time zone.`;
          }}
        />
      </label>
      <datalist id="time-zones">
        {ZONES.map((zone) => (
          <option key={zone} value={zone} />
        ))}
      </datalist>
      <label class="field">
        <span>Week starts on</span>
        <select
          value={String(current.weekStart)}
          onChange={(event) => void save({ week_start: Number(event.currentTarget.value) })}
        >
          {WEEKDAYS.map((name, index) => (
            <option key={name} value={String(index)}>
              {name}
            </option>
          ))}
        </select>
      </label>
      <label class="field">
        <span>Theme</span>
        <select value={theme.value} onChange={(event) => chooseTheme(themeOf(event.currentTarget.value))}>
          <option value="system">Same as the system</option>
          <option value="light">Light</option>
          <option value="dark">Dark</option>
        </select>
      </label>
      <p role="status" class="status">
        {status.value}
      </p>
    </form>
  );
}

function themeOf(value: string): Theme {
  return value === 'light' || value === 'dark' ? value : 'system';
}
