/** The keyboard shortcuts of WEB.md section 1, on the whole page. */
import { setCompleted, undo } from '../actions.ts';
import { collapsed, helpOpen, menuOpen, openId, rows, search, selectedId, setCollapsed, tasks } from '../state.ts';
import { indent, moveBy, outdent } from '../subtask-actions.ts';
import { undoOffer } from '../undo.ts';
import { BOX_VIEWS, hashOf } from '../views.ts';

function isTyping(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))
  );
}

function focusField(id: string): void {
  document.getElementById(id)?.focus();
}

/** The task whose row holds the focus (its title, checkbox or toggle), if any. */
function focusedTaskId(target: EventTarget | null): string | null {
  if (!(target instanceof HTMLElement)) return null;
  return target.closest<HTMLElement>('li.task')?.dataset['id'] ?? null;
}

/** Focuses a task's title again once the list has drawn it where it moved. */
function refocus(id: string): void {
  requestAnimationFrame(() => document.querySelector<HTMLElement>(`li[data-id="${CSS.escape(id)}"] .title`)?.focus());
}

/**
 * The subtask keys (WEB.md 1b) on a task's row: Tab and Shift+Tab indent and outdent, Alt+↑/↓
 * reorder. Elsewhere Tab moves the focus as usual (Escape leaves a row for that).
 */
function subtaskKey(event: KeyboardEvent): boolean {
  const id = focusedTaskId(event.target);
  const task = id === null ? undefined : tasks.value.get(id);
  if (task === undefined || event.ctrlKey || event.metaKey) return false;
  if (event.key === 'Tab' && !event.altKey) {
    if (event.shiftKey) outdent(task);
    else indent(task);
  } else if (event.altKey && (event.key === 'ArrowUp' || event.key === 'ArrowDown')) {
    moveBy(task, event.key === 'ArrowUp' ? -1 : 1);
  } else return false;
  event.preventDefault();
  selectedId.value = task.id;
  refocus(task.id);
  return true;
}

/** Moves the selection `step` tasks down (or up), and focuses that task's title. */
function move(step: number): void {
  const ids = rows.value.flatMap((row) => (row.type === 'task' ? [row.task.id] : []));
  if (ids.length === 0) return;
  const at = selectedId.value === null ? -1 : ids.indexOf(selectedId.value);
  const next = ids[Math.min(ids.length - 1, Math.max(0, at < 0 ? 0 : at + step))];
  if (next === undefined) return;
  selectedId.value = next;
  // The row is drawn once the list has scrolled to it.
  requestAnimationFrame(() => document.querySelector<HTMLElement>(`li[data-id="${CSS.escape(next)}"] .title`)?.focus());
}

export function onKeyDown(event: KeyboardEvent): void {
  // A modal dialog (the delete confirmation) handles its own keys.
  if (document.querySelector('dialog[open]') !== null) return;
  if (
    (event.ctrlKey || event.metaKey) &&
    event.key === 'z' &&
    undoOffer.value?.revert !== undefined &&
    !isTyping(event.target)
  ) {
    event.preventDefault();
    undo();
    return;
  }
  if (!isTyping(event.target) && subtaskKey(event)) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === 'Escape') {
    if (helpOpen.value) helpOpen.value = false;
    else if (menuOpen.value) menuOpen.value = false;
    else if (openId.value !== null) openId.value = null;
    else if (isTyping(event.target) && event.target instanceof HTMLElement) {
      if (event.target.id === 'search') search.value = '';
      event.target.blur();
    } else if (focusedTaskId(event.target) !== null && event.target instanceof HTMLElement) {
      // Tab indents on a row: Escape lets the focus go, and Tab moves it again.
      event.target.blur();
    }
    return;
  }
  if (isTyping(event.target)) return;
  const selected = selectedId.value === null ? undefined : tasks.value.get(selectedId.value);
  const box = BOX_VIEWS[Number(event.key) - 1];
  if (/^[1-5]$/.test(event.key) && box !== undefined) {
    location.hash = hashOf({ kind: 'box', view: box.view });
  } else if (event.key === 'n') focusField('quick-add');
  else if (event.key === '/') focusField('search');
  else if (event.key === 'j') move(1);
  else if (event.key === 'k') move(-1);
  else if (event.key === '?') helpOpen.value = !helpOpen.value;
  else if (event.key === 'x' && selected !== undefined) setCompleted(selected, selected.completed === null);
  else if (event.key === 'c' && selected !== undefined) setCollapsed(selected.id, !collapsed.value.has(selected.id));
  else if (
    (event.key === 'e' ||
      (event.key === 'Enter' &&
        !(event.target instanceof HTMLButtonElement || event.target instanceof HTMLAnchorElement))) &&
    selected !== undefined
  ) {
    openId.value = selected.id;
  } else return;
  event.preventDefault();
}
