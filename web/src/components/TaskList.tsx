import { useComputed, useSignal, useSignalEffect } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { collapsed, currentViewName, route, rows, search, searching, selectedId } from '../state.ts';
import { emptyViewText } from '../views.ts';
import { TaskRow } from './TaskRow.tsx';

/** Every row is this tall (styles.css), so the list knows where each row is without measuring. */
export const ROW_HEIGHT = 44;
/** Rows drawn beyond each edge of the visible part, so a quick scroll shows no gap. */
const OVERSCAN = 10;

/**
 * The current view as a list that draws only the rows on screen (and a few around): ten thousand
 * tasks cost as much to show as forty.
 */
export function TaskList() {
  const scroller = useRef<HTMLDivElement>(null);
  const scrollTop = useSignal(0);
  const height = useSignal(800);

  useEffect(() => {
    const element = scroller.current;
    if (element === null) return undefined;
    const observer = new ResizeObserver(() => (height.value = element.clientHeight));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  // The selected task (j/k) is scrolled into view.
  useSignalEffect(() => {
    const element = scroller.current;
    const id = selectedId.value;
    if (element === null || id === null) return;
    const index = rows.value.findIndex((row) => row.type === 'task' && row.task.id === id);
    if (index < 0) return;
    const top = index * ROW_HEIGHT;
    if (top < element.scrollTop) element.scrollTop = top;
    else if (top + ROW_HEIGHT > element.scrollTop + element.clientHeight)
      element.scrollTop = top + ROW_HEIGHT - element.clientHeight;
  });

  // Where any row has a toggle, every row keeps its room, so that the checkboxes of one level
  // stand in one column.
  const tree = useComputed(() =>
    rows.value.some(
      (row) => row.type === 'task' && (row.branch === true || (row.depth ?? 0) > 0 || collapsed.value.has(row.task.id)),
    ),
  );
  const all = rows.value;
  const first = Math.max(0, Math.floor(scrollTop.value / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(all.length, Math.ceil((scrollTop.value + height.value) / ROW_HEIGHT) + OVERSCAN);
  const selected = selectedId.value;
  return (
    <div class="scroller" ref={scroller} onScroll={(event) => (scrollTop.value = event.currentTarget.scrollTop)}>
      <div class="spacer" style={{ height: `${all.length * ROW_HEIGHT}px` }}>
        <ul
          class="tasks"
          aria-label={searching.value ? 'Search results' : currentViewName.value}
          style={{ transform: `translateY(${first * ROW_HEIGHT}px)` }}
        >
          {all.slice(first, last).map((row) =>
            row.type === 'group' ? (
              <li class="group" key={`group:${row.label}`}>
                <h2>{row.label}</h2>
              </li>
            ) : (
              <TaskRow
                key={row.task.id}
                task={row.task}
                where={row.where}
                depth={row.depth}
                branch={row.branch}
                tree={tree.value}
                selected={row.task.id === selected}
              />
            ),
          )}
        </ul>
      </div>
      {all.length === 0 && <p class="empty">{emptyViewText(route.value, search.value)}</p>}
    </div>
  );
}
