import type { ComponentChildren } from 'preact';
import { formatWireDate } from '../../../src/client/index.js';
import { BOXES, type Task, type TaskBody } from '../api.ts';
import { useSignal } from '@preact/signals';
import { deleteTask, edit, moveTo, setTrashed, wireDay } from '../actions.ts';
import { dayOf, instantOf, timeOf } from '../dates.ts';
import { openId, sortedContexts, sortedProjects, tasks, today, zone } from '../state.ts';
import { BOX_NAMES } from '../views.ts';
import { ConfirmDialog } from './ConfirmDialog.tsx';
import { EditField } from './EditField.tsx';
import { RemindersSection } from './RemindersSection.tsx';
import { SubtasksSection } from './SubtasksSection.tsx';

const REPEATS: readonly { readonly label: string; readonly rule: string | null }[] = [
  { label: 'none', rule: null },
  { label: 'daily', rule: 'FREQ=DAILY' },
  { label: 'weekdays', rule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR' },
  { label: 'weekly', rule: 'FREQ=WEEKLY' },
  { label: 'monthly', rule: 'FREQ=MONTHLY' },
  { label: 'yearly', rule: 'FREQ=YEARLY' },
];
const CUSTOM = 'custom';

const PRIORITIES = ['none', 'low', 'medium', 'high'];

/** A start today, all day: midnight in the account's zone, as quick add starts a task. */
function startingToday(): { start_at: string; all_day: true } {
  return { start_at: wireDay(today.value), all_day: true };
}

/** A date field's value: `YYYY-MM-DD` for an all-day task, else `YYYY-MM-DDTHH:MM`. */
function fieldValue(instant: number | null, allDay: boolean): string {
  if (instant === null) return '';
  const day = dayOf(instant, zone.value);
  return allDay ? day : `${day}T${timeOf(instant, zone.value)}`;
}

/** A date field's value as the wire writes it, in the account's zone; '' is none. */
function wireValue(value: string): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?$/.exec(value);
  if (match === null) return null;
  const [, year, month, day, hour = '0', minute = '0'] = match;
  return formatWireDate(
    new Date(instantOf(Number(year), Number(month), Number(day), Number(hour), Number(minute), zone.value)),
    zone.value,
  );
}

function splitTags(text: string): string[] {
  return text
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
}

function Field({ label, children }: { readonly label: string; readonly children: ComponentChildren }) {
  return (
    <label class="field">
      <span>{label}</span>
      {children}
    </label>
  );
}

function DetailsForm({ task }: { readonly task: Task }) {
  const confirming = useSignal(false);
  const save = (fields: Omit<TaskBody, 'id' | 'if_rev'>): void => edit(task, fields);
  const repeat = REPEATS.find((option) => option.rule === task.repeater)?.label ?? CUSTOM;
  const dateType = task.allDay ? 'date' : 'datetime-local';
  return (
    <form class="details-form" onSubmit={(event) => event.preventDefault()}>
      <Field label="Title">
        <EditField
          type="text"
          value={task.title}
          version={task.rev}
          maxLength={1000}
          onCommit={(title) => {
            if (title.trim() !== '' && title !== task.title) save({ title });
          }}
        />
      </Field>
      <Field label="Notes">
        <EditField multiline value={task.notes} version={task.rev} onCommit={(notes) => save({ notes })} />
      </Field>
      <Field label="Box">
        <select
          value={task.attribute}
          onChange={(event) => {
            const box = BOXES.find((candidate) => candidate === event.currentTarget.value);
            if (box === undefined) return;
            // Scheduled needs a start: moving a task there without one starts it today, all
            // day, as quick add does.
            moveTo(task, box, box === 'plan' && task.startAt === null ? startingToday() : {});
          }}
        >
          {Object.entries(BOX_NAMES).map(([box, name]) => (
            <option key={box} value={box}>
              {name}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Start">
        <EditField
          type={dateType}
          value={fieldValue(task.startAt, task.allDay)}
          version={task.rev}
          onCommit={(value) => save({ start_at: wireValue(value) })}
        />
      </Field>
      <Field label="Deadline">
        <EditField
          type={dateType}
          value={fieldValue(task.endAt, task.allDay)}
          version={task.rev}
          onCommit={(value) => save({ end_at: wireValue(value) })}
        />
      </Field>
      <label class="field checkbox">
        <input
          type="checkbox"
          checked={task.allDay}
          onChange={(event) => save({ all_day: event.currentTarget.checked })}
        />
        <span>All day</span>
      </label>
      <Field label="Repeat">
        <select
          value={repeat}
          onChange={(event) => {
            const choice = event.currentTarget.value;
            if (choice === CUSTOM) return;
            const repeater = REPEATS.find((option) => option.label === choice)?.rule ?? null;
            // The copy as it is now, not as this form was last drawn: a box chosen a moment
            // before may not have been drawn yet, and must not be overruled.
            const current = tasks.value.get(task.id) ?? task;
            // A series repeats from its start (the service refuses a repeater with no date):
            // repeating a task without one starts it today, all day; from the Inbox it goes to
            // Scheduled, as a quick-add date sends it (a task already sorted keeps its box).
            edit(
              current,
              repeater !== null && current.startAt === null && current.endAt === null
                ? { repeater, ...startingToday(), ...(current.attribute === 'inbox' ? { attribute: 'plan' } : {}) }
                : { repeater },
            );
          }}
        >
          {REPEATS.map((option) => (
            <option key={option.label} value={option.label}>
              {option.label}
            </option>
          ))}
          <option value={CUSTOM}>custom RRULE</option>
        </select>
      </Field>
      {repeat === CUSTOM && (
        <Field label="Custom RRULE">
          <EditField
            type="text"
            value={task.repeater ?? ''}
            version={task.rev}
            placeholder="FREQ=WEEKLY;BYDAY=MO"
            onCommit={(rule) => save({ repeater: rule.trim() === '' ? null : rule.trim() })}
          />
        </Field>
      )}
      <Field label="Project">
        <EditField
          type="text"
          list="project-names"
          value={task.project ?? ''}
          version={task.rev}
          onCommit={(name) => save({ project: name.trim() || null })}
        />
      </Field>
      <datalist id="project-names">
        {sortedProjects.value.map((project) => (
          <option key={project.id} value={project.name} />
        ))}
      </datalist>
      <Field label="Context">
        <EditField
          type="text"
          list="context-names"
          value={task.context ?? ''}
          version={task.rev}
          onCommit={(name) => save({ context: name.trim() || null })}
        />
      </Field>
      <datalist id="context-names">
        {sortedContexts.value.map((context) => (
          <option key={context.id} value={context.name} />
        ))}
      </datalist>
      <Field label="Tags">
        <EditField
          type="text"
          value={task.tags.join(', ')}
          version={task.rev}
          placeholder="comma, separated"
          onCommit={(text) => save({ tags: splitTags(text) })}
        />
      </Field>
      <Field label="Priority">
        <select
          value={String(task.priority)}
          onChange={(event) => save({ priority: Number(event.currentTarget.value) })}
        >
          {PRIORITIES.map((name, value) => (
            <option key={name} value={String(value)}>
              {name}
            </option>
          ))}
        </select>
      </Field>
      <RemindersSection task={task} />
      <SubtasksSection task={task} />
      <div class="buttons">
        {task.trashed === null ? (
          <button type="button" onClick={() => setTrashed(task, true)}>
            Move to trash
          </button>
        ) : (
          <button type="button" onClick={() => setTrashed(task, false)}>
            Restore
          </button>
        )}
        <button type="button" class="danger" onClick={() => (confirming.value = true)}>
          Delete
        </button>
      </div>
      {confirming.value && <ConfirmDelete task={task} onCancel={() => (confirming.value = false)} />}
    </form>
  );
}

/** Delete is for good: a modal dialog asks first, and Cancel (or Escape) keeps the task. */
function ConfirmDelete({ task, onCancel }: { readonly task: Task; readonly onCancel: () => void }) {
  return (
    <ConfirmDialog
      title="Delete this task?"
      confirm="Delete for good"
      onCancel={onCancel}
      onConfirm={() => {
        deleteTask(task);
        openId.value = null;
      }}
    >
      “{task.title}” will be deleted for good: this cannot be undone.
    </ConfirmDialog>
  );
}
/** The open task's fields, each saved as it is changed (with if_rev). */
export function Details() {
  const id = openId.value;
  const task = id === null ? undefined : tasks.value.get(id);
  if (task === undefined) return null;
  return (
    <section class="details" aria-label="Task details">
      <header>
        <button type="button" class="icon-button phone-only" onClick={() => (openId.value = null)}>
          Back
        </button>
        <h2>Task details</h2>
        <button
          type="button"
          class="icon-button desktop-only"
          aria-label="Close details"
          onClick={() => (openId.value = null)}
        >
          ×
        </button>
      </header>
      <DetailsForm key={task.id} task={task} />
    </section>
  );
}
