import type { Task } from '../api.ts';
import { setCompleted } from '../actions.ts';
import { describeInstant } from '../dates.ts';
import type { Where } from '../search.ts';
import {
  childCounts,
  collapsed,
  openId,
  projectColors,
  selectedId,
  setCollapsed,
  tasks,
  today,
  zone,
} from '../state.ts';
import { drop, type DropPlace } from '../subtask-actions.ts';

/** The type under which a dragged row carries its task's id. */
const DRAGGED = 'application/x-task-id';
/** Deep subtrees stop indenting (styles.css: a level's width) so that the title keeps its room. */
const MAX_INDENT_LEVELS = 6;

/** Where a drop lands on a row: its upper quarter before it, its lower quarter after it, else onto it. */
function placeOf(event: DragEvent): DropPlace {
  const row = event.currentTarget instanceof HTMLElement ? event.currentTarget.getBoundingClientRect() : null;
  if (row === null) return 'into';
  const at = (event.clientY - row.top) / row.height;
  return at < 0.25 ? 'before' : at > 0.75 ? 'after' : 'into';
}

function onDragOver(event: DragEvent): void {
  if (!(event.dataTransfer?.types.includes(DRAGGED) ?? false)) return;
  event.preventDefault();
  const row = event.currentTarget;
  if (row instanceof HTMLElement) row.dataset['drop'] = placeOf(event);
}

function onDragLeave(event: DragEvent): void {
  if (event.currentTarget instanceof HTMLElement) delete event.currentTarget.dataset['drop'];
}

const PRIORITY_NAMES = ['', 'low', 'medium', 'high'];

/** One task: its checkbox, its title (which opens it), and what is set beside it. */
export function TaskRow({
  task,
  selected,
  where,
  depth = 0,
  branch = false,
  tree = false,
}: {
  readonly task: Task;
  readonly selected: boolean;
  /** Where the task is, shown in search results (which come from every view). */
  readonly where?: Where | undefined;
  /** How far it is indented under its parent. */
  readonly depth?: number | undefined;
  /** Subtasks are shown under it (it can be collapsed). */
  readonly branch?: boolean | undefined;
  /** Some row of the list has a toggle: this one keeps the toggle's room too. */
  readonly tree?: boolean | undefined;
}) {
  const open = (): void => {
    selectedId.value = task.id;
    openId.value = task.id;
  };
  const hidden = collapsed.value.has(task.id);
  const count = childCounts.value.get(task.id);
  const reminders = task.reminders?.length ?? 0;
  return (
    <li
      class={`task${selected ? ' selected' : ''}${task.completed === null ? '' : ' done'}`}
      data-id={task.id}
      aria-current={selected ? 'true' : undefined}
      style={depth > 0 ? { '--depth': String(Math.min(depth, MAX_INDENT_LEVELS)) } : undefined}
      draggable
      onDragStart={(event) => {
        event.dataTransfer?.setData(DRAGGED, task.id);
        if (event.dataTransfer !== null) event.dataTransfer.effectAllowed = 'move';
      }}
      onDragOver={onDragOver}
      onDragLeave={onDragLeave}
      onDrop={(event) => {
        onDragLeave(event);
        const dragged = tasks.value.get(event.dataTransfer?.getData(DRAGGED) ?? '');
        if (dragged === undefined) return;
        event.preventDefault();
        drop(dragged, task, placeOf(event));
      }}
    >
      {branch || hidden ? (
        <button
          type="button"
          class="toggle"
          aria-expanded={!hidden}
          aria-label={`${hidden ? 'Expand' : 'Collapse'} ${task.title}`}
          onClick={() => setCollapsed(task.id, !hidden)}
        >
          {/* One glyph, turned when collapsed (styles.css): ▸ and ▾ are drawn at different sizes. */}
          <span aria-hidden="true">▾</span>
        </button>
      ) : (
        (tree || depth > 0) && <span class="toggle" aria-hidden="true" />
      )}
      {/* The label widens the checkbox's target to a finger's (styles.css); the name stays its own. */}
      <label class="check">
        <input
          type="checkbox"
          aria-label={`Complete ${task.title}`}
          checked={task.completed !== null}
          onChange={(event) => setCompleted(task, event.currentTarget.checked)}
        />
      </label>
      <button type="button" class="title" onClick={open}>
        {task.title}
      </button>
      <span class="meta">
        {count !== undefined && (
          <span class="subtasks" title={`${count.done} of ${count.total} subtasks done`}>
            <span aria-hidden="true">
              {count.done}/{count.total}
            </span>
            <span class="visually-hidden">
              {count.done} of {count.total} subtasks done
            </span>
          </span>
        )}
        {reminders > 0 && (
          <span class="remind" role="img" aria-label={reminders === 1 ? '1 reminder' : `${reminders} reminders`}>
            <svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true">
              <path d="M8 1.5a4.5 4.5 0 0 0-4.5 4.5v3L2 11.5h12L12.5 9V6A4.5 4.5 0 0 0 8 1.5zM6.5 13a1.5 1.5 0 0 0 3 0z" />
            </svg>
          </span>
        )}
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
