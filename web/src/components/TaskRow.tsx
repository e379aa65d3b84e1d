import type { Task } from '../api.ts';
import { setCompleted } from '../actions.ts';
import { describeInstant } from '../dates.ts';
import type { Where } from '../search.ts';
import { openId, projectColors, selectedId, today, zone } from '../state.ts';

const PRIORITY_NAMES = ['', 'low', 'medium', 'high'];

/** One task: its checkbox, its title (which opens it), and what is set beside it. */
export function TaskRow({
  task,
  selected,
  where,
}: {
  readonly task: Task;
  readonly selected: boolean;
  /** Where the task is, shown in search results (which come from every view). */
  readonly where?: Where | undefined;
}) {
  const open = (): void => {
    selectedId.value = task.id;
    openId.value = task.id;
  };
  return (
    <li
      class={`task${selected ? ' selected' : ''}${task.completed === null ? '' : ' done'}`}
      data-id={task.id}
      aria-current={selected ? 'true' : undefined}
    >
      <input
        type="checkbox"
        aria-label={`Complete ${task.title}`}
        checked={task.completed !== null}
        onChange={(event) => setCompleted(task, event.currentTarget.checked)}
      />
      <button type="button" class="title" onClick={open}>
        {task.title}
      </button>
      <span class="meta">
        {where !== undefined && <span class="where">in {where}</span>}
        {task.project !== null && (
          <span class="chip project">
            {projectColors.value.has(task.project) && (
              <span class="dot" style={{ background: projectColors.value.get(task.project) }} aria-hidden="true" />
            )}
            #{task.project}
          </span>
        )}
        {task.context !== null && <span class="chip context">{task.context}</span>}
        {task.tags.map((tag) => (
          <span class="chip tag" key={tag}>
            *{tag}
          </span>
        ))}
        {task.priority > 0 && <span class={`chip priority p${task.priority}`}>{PRIORITY_NAMES[task.priority]}</span>}
        {task.startAt !== null && (
          <span class="date start">start {describeInstant(task.startAt, task.allDay, zone.value, today.value)}</span>
        )}
        {task.endAt !== null && (
          <span class="date deadline">due {describeInstant(task.endAt, task.allDay, zone.value, today.value)}</span>
        )}
        {task.repeater !== null && (
          <span class="repeat" title="Repeats">
            ↻
          </span>
        )}
      </span>
    </li>
  );
}
