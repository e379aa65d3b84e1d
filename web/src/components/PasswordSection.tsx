import { useSignal } from '@preact/signals';
import { account } from '../session.ts';
import { rememberToken } from '../token.ts';
import { failureMessage } from './account-status.ts';

/**
 * Change password (ACCOUNTS.md section 1): the current one is asked for. Every other session of
 * the account ends; this browser gets a new session and a new token, so it goes on as it was.
 */
export function PasswordSection() {
  const status = useSignal<string | null>(null);
  const busy = useSignal(false);

  const submit = async (form: HTMLFormElement): Promise<void> => {
    const fields = new FormData(form);
    const current = String(fields.get('current_password') ?? '');
    const next = String(fields.get('new_password') ?? '');
    busy.value = true;
    try {
      rememberToken(await account.changePassword(current, next));
      form.reset();
      status.value = 'Password changed. Every other browser and device signed in with it is signed out.';
    } catch (error) {
      status.value = failureMessage('Not changed', error);
    } finally {
      busy.value = false;
    }
  };

  return (
    <section class="settings-section" aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void submit(event.currentTarget);
        }}
      >
        <label class="field">
          <span>Current password</span>
          <input name="current_password" type="password" autocomplete="current-password" required />
        </label>
        <label class="field">
          <span>New password</span>
          <input name="new_password" type="password" autocomplete="new-password" minLength={8} required />
        </label>
        <div class="buttons">
          <button type="submit" disabled={busy.value}>
            Change password
          </button>
        </div>
        <p role="status" class="status">
          {status.value}
        </p>
      </form>
    </section>
  );
}
