import { signal, useComputed, useSignal } from '@preact/signals';
import { parseQuickAdd, quickAddStartDate, withoutToken, type QuickAddToken } from '../../../src/client/index.js';
import { addTask } from '../actions.ts';
import { whereOf } from '../search.ts';
import { rows, selectedId, tasks, today } from '../state.ts';
import { offerUndo } from '../undo.ts';
import { BOX_VIEWS, hashOf } from '../views.ts';

/**
 * The syntax in brief; a phone's field is too narrow for all of it, so it gets the first part
 * (the rest is under Help).
 */
const NARROW = matchMedia('(max-width: 720px)');
const narrow = signal(NARROW.matches);
NARROW.addEventListener('change', (event) => (narrow.value = event.matches));

/** What a chip says: the field a token sets, a start day resolved against today. */
function chipLabel(token: QuickAddToken, day: string): string {
  switch (token.kind) {
    case 'project':
      return `project ${token.name}`;
    case 'context':
      return `context ${token.name}`;
    case 'tag':
      return `tag ${token.name}`;
    case 'priority':
      return `priority ${token.priority}`;
    case 'start':
      return `start ${quickAddStartDate(token.day, day)}${token.time === undefined ? '' : ` ${token.time}`}`;
    case 'box':
      return token.box === 'noplan' ? 'someday' : token.box;
  }
}

/** A task added where the view shown does not list it: a message says where it went, with Show. */
function tellWhereItWent(id: string): void {
  const task = tasks.value.get(id);
  if (task === undefined || rows.value.some((row) => row.type === 'task' && row.task.id === id)) return;
  const where = whereOf(task);
  const view = BOX_VIEWS.find((candidate) => candidate.name === where)?.view ?? 'inbox';
  offerUndo({ message: `Added “${task.title}” to ${where}`, show: hashOf({ kind: 'box', view }) });
}

/** The quick-add field: tokens in the text show as chips (each removable) before Enter adds the task. */
export function QuickAddField() {
  const text = useSignal('');
  const parsed = useComputed(() => parseQuickAdd(text.value));

  const submit = (event: Event): void => {
    event.preventDefault();
    if (parsed.value.title === '') return;
    performance.mark('quick-add');
    const id = addTask(parsed.value);
    selectedId.value = id;
    text.value = '';
    tellWhereItWent(id);
  };

  return (
    <form class="quick-add" onSubmit={submit}>
      <input
        id="quick-add"
        type="text"
        aria-label="Add a task"
        placeholder={
          narrow.value
            ? 'Add a task: #project @context ^tomorrow'
            : 'Add a task: #project @context *tag !1-3 ^tomorrow 9am ~next'
        }
        autocomplete="off"
        maxLength={1000}
        value={text.value}
        onInput={(event) => (text.value = event.currentTarget.value)}
      />
      {parsed.value.tokens.length > 0 && (
        <ul class="chips" aria-label="Tokens">
          {parsed.value.tokens.map((token) => (
            <li key={`${token.at}:${token.raw}`}>
              <span class={`chip ${token.kind}`}>{chipLabel(token, today.value)}</span>
              <button
                type="button"
                aria-label={`Remove ${chipLabel(token, today.value)}`}
                onClick={() => (text.value = withoutToken(text.value, token))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}
