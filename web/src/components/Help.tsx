import { helpOpen } from '../state.ts';

export const SHORTCUTS: readonly (readonly [string, string])[] = [
  ['n', 'Add a task'],
  ['/', 'Search'],
  ['j / k', 'Next / previous task'],
  ['x', 'Complete the selected task'],
  ['e or Enter', 'Open the selected task'],
  ['Tab / Shift+Tab', 'On a task: make it a subtask of the task above / move it out of its parent'],
  ['Alt+↑ / Alt+↓', 'On a task: move it up / down among its siblings'],
  ['c', 'Collapse or expand the selected task’s subtasks'],
  ['Escape', 'Close; on a task, leave the list (Tab then moves the focus again)'],
  ['Ctrl+Z', 'Undo the last complete, trash or move'],
  ['1 … 5', 'Inbox, Next, Scheduled, Someday, Waiting'],
  ['?', 'This list'],
];

/** Every keyboard shortcut, opened with `?`. */
export function Help() {
  if (!helpOpen.value) return null;
  return (
    <div class="dialog help" role="dialog" aria-modal="true" aria-label="Keyboard shortcuts">
      <h2>Keyboard shortcuts</h2>
      <dl>
        {SHORTCUTS.map(([keys, action]) => (
          <div key={keys}>
            <dt>
              <kbd>{keys}</kbd>
            </dt>
            <dd>{action}</dd>
          </div>
        ))}
      </dl>
      <button type="button" autofocus onClick={() => (helpOpen.value = false)}>
        Close
      </button>
    </div>
  );
}
