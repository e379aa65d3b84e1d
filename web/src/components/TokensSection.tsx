import { useSignal } from '@preact/signals';
import type { PersonalToken } from '../../../src/client/index.js';
import { account } from '../session.ts';
import { zone } from '../state.ts';
import { failureMessage } from './account-status.ts';
import { useShownList } from './shown-list.ts';
import { whenText } from './when.ts';

const SCOPE_NAMES: Readonly<Record<PersonalToken['scope'], string>> = { write: 'read and write', read: 'read only' };
/** The expiries offered, in days; "never" is the empty value. */
const EXPIRIES = [30, 90, 365] as const;

function TokenItem({ token, onRevoke }: { readonly token: PersonalToken; readonly onRevoke: () => void }) {
  const where = zone.value;
  return (
    <li class="access-item">
      <div>
        <strong>{token.name}</strong>
        <span class="access-meta">
          {SCOPE_NAMES[token.scope]} · made {whenText(token.created, where)} · last used{' '}
          {token.last_used === null ? 'never' : whenText(token.last_used, where)} · expires{' '}
          {token.expires === null ? 'never' : whenText(token.expires, where)}
        </span>
      </div>
      <button type="button" class="danger" aria-label={`Revoke ${token.name}`} onClick={onRevoke}>
        Revoke
      </button>
    </li>
  );
}

/**
 * The account's own tokens (ACCOUNTS.md section 4): made here or with `token create`, each with
 * Revoke; New token makes one and shows it once. Tokens apps hold are under Connected apps.
 */
export function TokensSection() {
  const made = useSignal<{ readonly id: string; readonly name: string; readonly token: string } | null>(null);
  const status = useSignal<string | null>(null);
  const {
    list: tokens,
    failed,
    reload: load,
  } = useShownList<readonly PersonalToken[]>(
    () => account.tokens(),
    (error) => failureMessage('Tokens not shown', error),
    status,
  );

  const create = async (form: HTMLFormElement): Promise<void> => {
    const fields = new FormData(form);
    const expiry = String(fields.get('expires') ?? '');
    try {
      const answer = await account.makeToken({
        name: String(fields.get('name') ?? ''),
        scope: fields.get('scope') === 'read' ? 'read' : 'write',
        expires_in_days: expiry === '' ? 'never' : expiry,
      });
      made.value = { id: answer.entry.id, name: answer.entry.name, token: answer.token };
      form.reset();
      status.value = null;
      await load();
    } catch (error) {
      status.value = failureMessage('No token made', error);
    }
  };

  const revoke = async (token: PersonalToken): Promise<void> => {
    try {
      await account.revokeToken(token.id);
      status.value = `${token.name} revoked: it no longer works.`;
      if (made.value?.id === token.id) made.value = null;
      await load();
    } catch (error) {
      status.value = failureMessage('Not revoked', error);
    }
  };

  return (
    <section class="settings-section" aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">Tokens</h2>
      <p class="hint">A token lets a program (a script, the terminal client, curl) use your account through the API.</p>
      {tokens.value === null ? (
        !failed.value && <p class="status">Loading tokens…</p>
      ) : tokens.value.length === 0 ? (
        <p class="status">No tokens yet. Name one below and choose its access to make it.</p>
      ) : (
        <ul class="access-list" aria-label="Tokens">
          {tokens.value.map((token) => (
            <TokenItem key={token.id} token={token} onRevoke={() => void revoke(token)} />
          ))}
        </ul>
      )}
      {made.value !== null && (
        <div class="new-token">
          <label class="field">
            <span>Your new token “{made.value.name}”: copy it now, it is not shown again</span>
            <input type="text" readOnly value={made.value.token} onFocus={(event) => event.currentTarget.select()} />
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
          void create(event.currentTarget);
        }}
      >
        <label class="field">
          <span>Token name</span>
          <input name="name" type="text" maxLength={100} required placeholder="e.g. laptop script" />
        </label>
        <label class="field">
          <span>Access</span>
          <select name="scope">
            <option value="write">Read and write</option>
            <option value="read">Read only</option>
          </select>
        </label>
        <label class="field">
          <span>Expires</span>
          <select name="expires">
            <option value="">Never</option>
            {EXPIRIES.map((days) => (
              <option key={days} value={String(days)}>
                in {days} days
              </option>
            ))}
          </select>
        </label>
        <div class="buttons">
          <button type="submit">New token</button>
        </div>
      </form>
      <p role="status" class="status">
        {status.value}
      </p>
    </section>
  );
}
