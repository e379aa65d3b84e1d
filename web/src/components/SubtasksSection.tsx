/**
 * A task's place in its tree, in its details (WEB.md 1b): its parent, its subtasks, **Add
 * subtask**, and the buttons that indent, outdent and reorder it, for touch and mouse (the list
 * has Tab, Shift+Tab, Alt+↑/↓ and dragging for the same).
 */
import type { Task } from '../api.ts';
import { openId, selectedId, tasks } from '../state.ts';
import { addSubtask, indent, moveBy, outdent } from '../subtask-actions.ts';
import { parentOf, sortOrderOf } from '../subtasks.ts';

function openTask(id: string): void {
  selectedId.value = id;
  openId.value = id;
}

export function SubtasksSection({ task }: { readonly task: Task }) {
  const parentId = parentOf(task);
  const parent = parentId === null ? undefined : tasks.value.get(parentId);
  const children = [...tasks.value.values()]
    .filter((other) => parentOf(other) === task.id && other.trashed === null)
    .sort((a, b) => sortOrderOf(a) - sortOrderOf(b) || a.created - b.created);
  return (
    <fieldset class="subtasks-section">
      <legend>Subtasks</legend>
      {parent !== undefined && (
        <p>
          Subtask of{' '}
          <button type="button" class="link" onClick={() => openTask(parent.id)}>
            {parent.title}
          </button>
        </p>
      )}
      {children.length > 0 && (
        <ul aria-label={`Subtasks of ${task.title}`}>
          {children.map((child) => (
            <li key={child.id} class={child.completed === null ? '' : 'done'}>
              <button type="button" class="link" onClick={() => openTask(child.id)}>
                {child.title}
              </button>
            </li>
          ))}
        </ul>
      )}
      <label class="field">
        <span>Add subtask</span>
        <input
          type="text"
          maxLength={1000}
          placeholder="A step of this task, then Enter"
          onKeyDown={(event) => {
            if (event.key !== 'Enter') return;
            event.preventDefault();
            const title = event.currentTarget.value.trim();
            if (title === '') return;
            addSubtask(task, title);
            event.currentTarget.value = '';
          }}
        />
      </label>
      <div class="buttons">
        <button type="button" onClick={() => indent(task)}>
          Indent
        </button>
        <button type="button" disabled={parentId === null} onClick={() => outdent(task)}>
          Outdent
        </button>
        <button type="button" onClick={() => moveBy(task, -1)}>
          Move up
        </button>
        <button type="button" onClick={() => moveBy(task, 1)}>
          Move down
        </button>
      </div>
    </fieldset>
  );
}
