import { useComputed, useSignal } from '@preact/signals';
import { addTask } from '../actions.ts';
import { chipLabel, parseQuickAdd, withoutTokens } from '../quick-add.ts';
import { selectedId, today, todayWeekday } from '../state.ts';

/** The quick-add field: tokens in the text show as chips (each removable) before Enter adds the task. */
export function QuickAddField() {
  const text = useSignal('');
  const parsed = useComputed(() => parseQuickAdd(text.value, today.value, todayWeekday.value));

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
            <li key={`${token.from}:${token.word}`}>
              <span class={`chip ${token.chip.kind}`}>{chipLabel(token.chip)}</span>
              <button
                type="button"
                aria-label={`Remove ${chipLabel(token.chip)}`}
                onClick={() => (text.value = withoutTokens(text.value, [token]))}
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
