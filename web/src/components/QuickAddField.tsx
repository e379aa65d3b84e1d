import { useComputed, useSignal } from '@preact/signals';
import { parseQuickAdd, quickAddStartDate, withoutToken, type QuickAddToken } from '../../../src/client/index.js';
import { addTask } from '../actions.ts';
import { selectedId, today } from '../state.ts';

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
      return `start ${quickAddStartDate(token.day, day)}`;
    case 'box':
      return token.box === 'noplan' ? 'someday' : token.box;
  }
}

/** The quick-add field: tokens in the text show as chips (each removable) before Enter adds the task. */
export function QuickAddField() {
  const text = useSignal('');
  const parsed = useComputed(() => parseQuickAdd(text.value));

  const submit = (event: Event): void => {
    event.preventDefault();
    if (parsed.value.title === '') return;
    performance.mark('quick-add');
    selectedId.value = addTask(parsed.value);
    text.value = '';
  };

  return (
    <form class="quick-add" onSubmit={submit}>
      <input
        id="quick-add"
        type="text"
        aria-label="Add a task"
        placeholder="Add a task: #project @context *tag !1-3 ^today ~next"
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
