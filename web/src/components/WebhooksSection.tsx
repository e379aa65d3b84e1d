import { useSignal } from '@preact/signals';
import { TaskServiceError, UnavailableError } from '../api.ts';
import { zone } from '../state.ts';
import {
  addWebhook,
  changeWebhook,
  deleteWebhook,
  deliveriesOf,
  listWebhooks,
  WEBHOOK_EVENTS,
  type DeliveryTry,
  type Webhook,
} from '../webhooks.ts';
import { ConfirmDialog } from './ConfirmDialog.tsx';
import { useShownList } from './shown-list.ts';
import { whenText } from './when.ts';

/** The server's own words when it refused (E003/E004 say which field and why), as text. */
function failure(action: string, error: unknown): string {
  if (error instanceof TaskServiceError) return `${action}: ${error.retmsg}`;
  if (error instanceof UnavailableError) return `${action}: the server cannot be reached.`;
  return `${action}: ${error instanceof Error ? error.message : String(error)}`;
}

function eventsText(events: readonly string[]): string {
  return events.includes('*') ? 'all events' : events.join(', ');
}

function stateText(hook: Webhook): string {
  if (!hook.active) return hook.disabledReason === null ? 'off' : `turned off: ${hook.disabledReason}`;
  return hook.failingSince === null ? 'on' : `on, failing since ${whenText(hook.failingSince, zone.value)}`;
}

/** Failing, or turned off by the service: said in the color of an error, to be seen at a glance. */
function troubled(hook: Webhook): boolean {
  return hook.active ? hook.failingSince !== null : hook.disabledReason !== null;
}

function resultText(attempt: DeliveryTry): string {
  if (attempt.error !== null) return attempt.status === null ? attempt.error : `${attempt.status}: ${attempt.error}`;
  return attempt.status === null ? 'no answer' : String(attempt.status);
}

/** A hook's last 50 tries, newest first, read when shown. */
function DeliveryLog({ hook, id }: { readonly hook: Webhook; readonly id: string }) {
  const status = useSignal<string | null>(null);
  const { list: tries } = useShownList<readonly DeliveryTry[]>(
    () => deliveriesOf(hook.id),
    (error) => failure('Deliveries not shown', error),
    status,
  );
  const where = zone.value;
  return (
    <div id={id} class="deliveries">
      {status.value !== null ? (
        <p class="status">{status.value}</p>
      ) : tries.value === null ? (
        <p class="status">Loading deliveries…</p>
      ) : tries.value.length === 0 ? (
        <p class="status">No deliveries yet: one is sent with the next change it listens to.</p>
      ) : (
        <table>
          <caption class="visually-hidden">Deliveries to {hook.url}</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Event</th>
              <th scope="col">Result</th>
              <th scope="col">Took</th>
            </tr>
          </thead>
          <tbody>
            {tries.value.map((attempt, index) => {
              const ok = attempt.error === null && attempt.status !== null && attempt.status < 300;
              return (
                <tr key={index}>
                  <td>{whenText(attempt.at, where)}</td>
                  <td>{attempt.type}</td>
                  <td class={ok ? '' : 'failed'}>{resultText(attempt)}</td>
                  <td>{attempt.durationMs} ms</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}

function HookItem({
  hook,
  onToggle,
  onDelete,
}: {
  readonly hook: Webhook;
  readonly onToggle: () => void;
  readonly onDelete: () => void;
}) {
  const open = useSignal(false);
  const logId = `deliveries-${hook.id}`;
  return (
    <li class="hook-item">
      <div class="hook-row">
        <div>
          <strong class="hook-url">{hook.url}</strong>
          <span class="access-meta">
            {eventsText(hook.events)} ·{' '}
            {troubled(hook) ? <span class="hook-failing">{stateText(hook)}</span> : stateText(hook)}
          </span>
        </div>
        <div class="hook-buttons">
          <button
            type="button"
            aria-expanded={open.value}
            aria-controls={logId}
            aria-label={`Deliveries to ${hook.url}`}
            onClick={() => (open.value = !open.value)}
          >
            Deliveries
          </button>
          <button type="button" aria-label={`${hook.active ? 'Turn off' : 'Turn on'} ${hook.url}`} onClick={onToggle}>
            {hook.active ? 'Turn off' : 'Turn on'}
          </button>
          <button type="button" class="danger" aria-label={`Delete ${hook.url}`} onClick={onDelete}>
            Delete
          </button>
        </div>
      </div>
      {open.value && <DeliveryLog hook={hook} id={logId} />}
    </li>
  );
}

/** "All events" and single events exclude each other: ticking one kind unticks the other. */
function chooseEvents(choices: HTMLFieldSetElement, ticked: EventTarget | null): void {
  if (!(ticked instanceof HTMLInputElement) || !ticked.checked) return;
  for (const box of choices.querySelectorAll<HTMLInputElement>('input[name="events"]')) {
    if ((box.value === '*') !== (ticked.value === '*')) box.checked = false;
  }
}

/**
 * The account's webhooks (API.md 4.7): add one (URL and events; its signing secret is shown
 * once), turn it off or on, delete it (after a question), and see its last deliveries.
 */
export function WebhooksSection() {
  const made = useSignal<Webhook | null>(null);
  const deleting = useSignal<Webhook | null>(null);
  const status = useSignal<string | null>(null);
  const {
    list: hooks,
    failed,
    reload: load,
  } = useShownList<readonly Webhook[]>(listWebhooks, (error) => failure('Webhooks not shown', error), status);

  const add = async (form: HTMLFormElement): Promise<void> => {
    const fields = new FormData(form);
    const chosen = fields.getAll('events').map(String);
    try {
      made.value = await addWebhook(String(fields.get('url') ?? '').trim(), chosen);
      form.reset();
      status.value = null;
      await load();
    } catch (error) {
      status.value = failure('Not added', error);
    }
  };

  const toggle = async (hook: Webhook): Promise<void> => {
    try {
      await changeWebhook(hook.id, { active: !hook.active });
      status.value = `${hook.url} turned ${hook.active ? 'off' : 'on'}.`;
      await load();
    } catch (error) {
      status.value = failure('Not changed', error);
    }
  };

  const remove = async (hook: Webhook): Promise<void> => {
    deleting.value = null;
    try {
      await deleteWebhook(hook.id);
      status.value = `${hook.url} deleted.`;
      if (made.value?.id === hook.id) made.value = null;
      await load();
    } catch (error) {
      status.value = failure('Not deleted', error);
    }
  };

  return (
    <section class="settings-section" aria-labelledby="webhooks-heading">
      <h2 id="webhooks-heading">Webhooks</h2>
      <p class="hint">
        A webhook sends each change you choose to a URL of yours as it happens, signed with its secret (see the API
        documentation).
      </p>
      {hooks.value === null ? (
        !failed.value && <p class="status">Loading webhooks…</p>
      ) : hooks.value.length === 0 ? (
        <p class="status">
          No webhooks yet. To add one, give below the URL that should receive the changes and choose the events.
        </p>
      ) : (
        <ul class="access-list" aria-label="Webhooks">
          {hooks.value.map((hook) => (
            <HookItem
              key={hook.id}
              hook={hook}
              onToggle={() => void toggle(hook)}
              onDelete={() => (deleting.value = hook)}
            />
          ))}
        </ul>
      )}
      {made.value !== null && made.value.secret !== null && (
        <div class="new-token">
          <label class="field">
            <span>Signing secret of {made.value.url}: copy it now, it is not shown again</span>
            <input type="text" readOnly value={made.value.secret} onFocus={(event) => event.currentTarget.select()} />
          </label>
          <button type="button" onClick={() => (made.value = null)}>
            Done
          </button>
        </div>
      )}
      <form
        class="new-hook-form"
        aria-label="New webhook"
        onSubmit={(event) => {
          event.preventDefault();
          void add(event.currentTarget);
        }}
      >
        <label class="field">
          <span>Webhook URL</span>
          <input name="url" type="text" inputMode="url" required placeholder="https://example.com/hook" />
        </label>
        <fieldset class="event-choices" onChange={(event) => chooseEvents(event.currentTarget, event.target)}>
          <legend>Events</legend>
          <label>
            <input type="checkbox" name="events" value="*" defaultChecked /> All events
          </label>
          {WEBHOOK_EVENTS.map((name) => (
            <label key={name}>
              <input type="checkbox" name="events" value={name} /> {name}
            </label>
          ))}
        </fieldset>
        <div class="buttons">
          <button type="submit">Add webhook</button>
        </div>
      </form>
      <p role="status" class="status">
        {status.value}
      </p>
      {deleting.value !== null && (
        <ConfirmDialog
          title="Delete this webhook?"
          confirm="Delete webhook"
          onConfirm={() => {
            const hook = deleting.value;
            if (hook !== null) void remove(hook);
          }}
          onCancel={() => (deleting.value = null)}
        >
          {deleting.value.url} stops receiving changes, and its delivery log is deleted.
        </ConfirmDialog>
      )}
    </section>
  );
}
