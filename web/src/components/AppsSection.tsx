import { useSignal } from '@preact/signals';
import type { ConnectedApp } from '../../../src/client/index.js';
import { account } from '../session.ts';
import { zone } from '../state.ts';
import { failureMessage } from './account-status.ts';
import { useShownList } from './shown-list.ts';
import { whenText } from './when.ts';

/**
 * The OAuth apps the account allowed (ACCOUNTS.md section 4), each with Revoke: its tokens stop
 * working at once, and it must ask again.
 */
export function AppsSection() {
  const status = useSignal<string | null>(null);
  const {
    list: apps,
    failed,
    reload: load,
  } = useShownList<readonly ConnectedApp[]>(
    () => account.apps(),
    (error) => failureMessage('Apps not shown', error),
    status,
  );

  const revoke = async (app: ConnectedApp): Promise<void> => {
    try {
      await account.revokeApp(app.client_id);
      status.value = `${app.name} no longer has access.`;
      await load();
    } catch (error) {
      status.value = failureMessage('Not revoked', error);
    }
  };

  const where = zone.value;
  return (
    <section class="settings-section" aria-labelledby="apps-heading">
      <h2 id="apps-heading">Connected apps</h2>
      {apps.value === null ? (
        !failed.value && <p class="status">Loading apps…</p>
      ) : apps.value.length === 0 ? (
        <p class="status">No apps are connected to your account.</p>
      ) : (
        <ul class="access-list" aria-label="Connected apps">
          {apps.value.map((app) => (
            <li key={app.client_id} class="access-item">
              <div>
                <strong>{app.name}</strong>
                <span class="access-meta">
                  {app.scope === 'write' ? 'may read and change your tasks' : 'may read your tasks'} · allowed{' '}
                  {whenText(app.allowed, where)} · last used{' '}
                  {app.last_used === null ? 'never' : whenText(app.last_used, where)}
                </span>
              </div>
              <button type="button" class="danger" aria-label={`Revoke ${app.name}`} onClick={() => void revoke(app)}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
      <p role="status" class="status">
        {status.value}
      </p>
    </section>
  );
}
