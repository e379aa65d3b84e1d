/**
 * A task's reminders in its details (WEB.md 1b, API.md 4.5): each listed with **Remove**, and a
 * new one at a time or some minutes before the start or the deadline; at most ten. The whole
 * list is sent with each change (the server keeps the ids of those sent back).
 */
import { useSignal } from '@preact/signals';
import { formatWireDate } from '../../../src/client/index.js';
import type { Reminder, ReminderBody, Task } from '../api.ts';
import { edit } from '../actions.ts';
import { describeInstant, instantOf } from '../dates.ts';
import { tasks, today, zone } from '../state.ts';

export const MAX_REMINDERS = 10;
/** The contract's longest "before": four weeks, in minutes. */
const MAX_BEFORE = 40_320;

type Kind = 'at' | 'start_at' | 'end_at';

function bodyOf(reminder: Reminder): ReminderBody {
  const id = reminder.id === undefined ? {} : { id: reminder.id };
  return 'at' in reminder
    ? { ...id, at: formatWireDate(new Date(reminder.at), zone.value) }
    : { ...id, before: reminder.before, of: reminder.of };
}

function minutesText(minutes: number): string {
  if (minutes === 0) return 'at';
  if (minutes % 1440 === 0) return `${minutes / 1440} day${minutes === 1440 ? '' : 's'} before`;
  if (minutes % 60 === 0) return `${minutes / 60} hour${minutes === 60 ? '' : 's'} before`;
  return `${minutes} minute${minutes === 1 ? '' : 's'} before`;
}

/** A reminder in words: "at tomorrow 09:00", "15 minutes before the deadline". */
export function describeReminder(reminder: Reminder): string {
  if ('at' in reminder) return `at ${describeInstant(reminder.at, false, zone.value, today.value)}`;
  return `${minutesText(reminder.before)} the ${reminder.of === 'start_at' ? 'start' : 'deadline'}`;
}

/** A `datetime-local` value in the account's zone, as the wire writes it; null if incomplete. */
function wireOfLocal(value: string): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(value);
  if (match === null) return null;
  const [, year, month, day, hour, minute] = match.map(Number);
  if (year === undefined || month === undefined || day === undefined || hour === undefined || minute === undefined)
    return null;
  return formatWireDate(new Date(instantOf(year, month, day, hour, minute, zone.value)), zone.value);
}

/** The first reminder asks for permission to notify (the app shows reminders that fire while it is open). */
function askToNotify(): void {
  if ('Notification' in window && Notification.permission === 'default') void Notification.requestPermission();
}

export function RemindersSection({ task }: { readonly task: Task }) {
  const kind = useSignal<Kind>('at');
  const when = useSignal('');
  const minutes = useSignal('15');
  const problem = useSignal<string | null>(null);
  const reminders = task.reminders ?? [];
  const full = reminders.length >= MAX_REMINDERS;

  // The copy as it is now, not as this panel was last drawn: a reminder added a moment before may
  // not have been drawn yet, and must not be dropped by the next change.
  const current = (): Task => tasks.value.get(task.id) ?? task;
  const save = (next: readonly ReminderBody[]): void => edit(current(), { reminders: next });
  const add = (): void => {
    let reminder: ReminderBody;
    if (kind.value === 'at') {
      const at = wireOfLocal(when.value);
      if (at === null) {
        problem.value = 'Choose a date and a time for the reminder.';
        return;
      }
      reminder = { at };
    } else {
      const before = Number(minutes.value);
      if (!Number.isInteger(before) || before < 0 || before > MAX_BEFORE) {
        problem.value = `Minutes before: a whole number from 0 to ${MAX_BEFORE.toLocaleString('en')} (four weeks).`;
        return;
      }
      reminder = { before, of: kind.value };
    }
    problem.value = null;
    save([...(current().reminders ?? []).map(bodyOf), reminder]);
    askToNotify();
  };

  return (
    <fieldset class="reminders">
      <legend>Reminders</legend>
      {reminders.length === 0 ? (
        <p class="hint">No reminders. Add one at a time, or some minutes before the start or the deadline.</p>
      ) : (
        <ul>
          {reminders.map((reminder, index) => {
            const text = describeReminder(reminder);
            const unanchored = 'of' in reminder && (reminder.of === 'start_at' ? task.startAt : task.endAt) === null;
            return (
              <li key={reminder.id ?? `new-${index}`}>
                <span>
                  {text}
                  {unanchored && (
                    <span class="hint"> (the task has no {reminder.of === 'start_at' ? 'start' : 'deadline'} yet)</span>
                  )}
                </span>
                <button
                  type="button"
                  aria-label={`Remove reminder ${text}`}
                  onClick={() => save(reminders.filter((_, at) => at !== index).map(bodyOf))}
                >
                  Remove
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {full ? (
        <p class="hint">At most {MAX_REMINDERS} reminders: remove one to add another.</p>
      ) : (
        <div class="reminder-add">
          {/* Labelled by id, not by wrapping: a wrapping label's name would take in the options'
              text, and "before the start" would then answer to the label **Start**. */}
          <div class="field">
            <label for="new-reminder">New reminder</label>
            <select
              id="new-reminder"
              value={kind.value}
              onChange={(event) => {
                const value = event.currentTarget.value;
                kind.value = value === 'start_at' || value === 'end_at' ? value : 'at';
              }}
            >
              <option value="at">at a time</option>
              <option value="start_at">before the start</option>
              <option value="end_at">before the deadline</option>
            </select>
          </div>
          {kind.value === 'at' ? (
            <label class="field">
              <span>Reminder time</span>
              <input
                type="datetime-local"
                value={when.value}
                onInput={(event) => (when.value = event.currentTarget.value)}
              />
            </label>
          ) : (
            <label class="field">
              <span>Minutes before</span>
              <input
                type="number"
                min={0}
                max={MAX_BEFORE}
                step={1}
                value={minutes.value}
                onInput={(event) => (minutes.value = event.currentTarget.value)}
              />
            </label>
          )}
          <button type="button" onClick={add}>
            Add reminder
          </button>
        </div>
      )}
      {problem.value !== null && (
        <p class="status error" role="alert">
          {problem.value}
        </p>
      )}
    </fieldset>
  );
}
