/**
 * What each view shows (WEB.md section 1), as plain functions of the tasks: the app computes a
 * view once per change of the data, the route or the search, never per row or per frame.
 */
import type { Box, Label, Task } from './api.ts';
import { addDays, dayOf } from './dates.ts';
import { compileSearch, WHERE_ORDER, whereOf, type SearchContext, type Where } from './search.ts';
import { nest, sortOrderOf, underTrash } from './subtasks.ts';

export type BoxView = 'inbox' | 'next' | 'scheduled' | 'someday' | 'waiting' | 'completed' | 'trash';

export type Route =
  | { readonly kind: 'box'; readonly view: BoxView }
  | { readonly kind: 'project'; readonly id: string }
  | { readonly kind: 'context'; readonly id: string }
  | { readonly kind: 'settings' }
  | { readonly kind: 'labels' }
  | { readonly kind: 'search'; readonly query: string };

/** The views in the navigation's order, with their names; the first five are keys 1-5. */
export const BOX_VIEWS: readonly { readonly view: BoxView; readonly name: string; readonly box: Box | null }[] = [
  { view: 'inbox', name: 'Inbox', box: 'inbox' },
  { view: 'next', name: 'Next', box: 'next' },
  { view: 'scheduled', name: 'Scheduled', box: 'plan' },
  { view: 'someday', name: 'Someday', box: 'noplan' },
  { view: 'waiting', name: 'Waiting', box: 'waiting' },
  { view: 'completed', name: 'Completed', box: null },
  { view: 'trash', name: 'Trash', box: null },
];

export const BOX_NAMES: Readonly<Record<Box, string>> = {
  inbox: 'Inbox',
  next: 'Next',
  plan: 'Scheduled',
  noplan: 'Someday',
  waiting: 'Waiting',
};

export function routeOf(hash: string): Route {
  const [, first = '', second] = hash.replace(/^#/, '').split('/');
  if (first === 'settings') return { kind: 'settings' };
  if (first === 'labels') return { kind: 'labels' };
  if (first === 'search') return { kind: 'search', query: decodeURIComponent(second ?? '') };
  if ((first === 'project' || first === 'context') && second !== undefined) {
    return { kind: first, id: decodeURIComponent(second) };
  }
  const view = BOX_VIEWS.find((candidate) => candidate.view === first);
  return { kind: 'box', view: view?.view ?? 'inbox' };
}

export function hashOf(route: Route): string {
  switch (route.kind) {
    case 'settings':
      return '#/settings';
    case 'labels':
      return '#/labels';
    case 'search':
      return `#/search/${encodeURIComponent(route.query)}`;
    case 'box':
      return `#/${route.view}`;
    default:
      return `#/${route.kind}/${encodeURIComponent(route.id)}`;
  }
}

/** What an empty view says: why nothing is there, and how something gets there. */
const EMPTY_BOX_VIEWS: Readonly<Record<BoxView, string>> = {
  inbox: 'Your inbox is empty. Type a task in the field above and press Enter: it waits here until you sort it.',
  next: 'No next actions. Add one with ~next in the field above, or move a task here with Box in its details.',
  scheduled:
    'Nothing scheduled. Give a task a start date: ^tomorrow (or ^mon, ^2030-01-31) in the field above, or Start in its details.',
  someday:
    'Nothing for someday. Add one with ^someday in the field above, or move a task here with Box in its details.',
  waiting:
    'Nothing you are waiting for. Add one with ~waiting in the field above, or move a task here with Box in its details.',
  completed: 'No completed tasks yet. Tick the box in front of a task to complete it.',
  trash: "The trash is empty. Move to trash, in a task's details, puts a task here.",
};

export function emptyViewText(route: Route, search: string): string {
  if (search.trim() !== '')
    return 'No task matches, in any box. Fewer words find more; filters: #project @context *tag !1-3 is:completed is:overdue due:today due:<2030-01-31 no:date.';
  switch (route.kind) {
    case 'box':
      return EMPTY_BOX_VIEWS[route.view];
    case 'project':
      return 'No open tasks in this project. A task added in the field above goes into it.';
    case 'context':
      return 'No open tasks in this context. A task added in the field above gets it.';
    case 'settings':
    case 'labels':
      return '';
    case 'search':
      return 'Type in Search above: words, and filters such as #project @context *tag !3 is:overdue due:today.';
  }
}

export type Row =
  | { readonly type: 'group'; readonly label: string }
  /**
   * `where`: set in search results, which come from every view. `depth`: how far a subtask is
   * indented under its parent (0 or absent: top level); `branch`: subtasks are shown under it.
   */
  | {
      readonly type: 'task';
      readonly task: Task;
      readonly where?: Where;
      readonly depth?: number;
      readonly branch?: boolean;
    };

export function isOpen(task: Task): boolean {
  return task.completed === null && task.trashed === null && task.deleted === null;
}

/** Open tasks in each box, for the navigation. */
export function countByBox(tasks: Iterable<Task>): Record<Box, number> {
  const counts: Record<Box, number> = { inbox: 0, next: 0, plan: 0, noplan: 0, waiting: 0 };
  for (const task of tasks) if (isOpen(task)) counts[task.attribute] += 1;
  return counts;
}

// `created` has whole seconds: within one, the later change (rev) counts as newer.
const byNewest = (a: Task, b: Task): number => b.created - a.created || b.rev - a.rev || (a.id < b.id ? -1 : 1);
const byPriorityThenNewest = (a: Task, b: Task): number => b.priority - a.priority || byNewest(a, b);
/** The order a person can change (API.md 4.4: `sort_order`, dragged), then the box's own. */
const byOrderThenPriority = (a: Task, b: Task): number => sortOrderOf(a) - sortOrderOf(b) || byPriorityThenNewest(a, b);

const NO_COLLAPSED: ReadonlySet<string> = new Set();

/** Tasks as rows, subtasks under their parents. */
function nestedRows(tasks: readonly Task[], collapsed: ReadonlySet<string>): Row[] {
  return nest(tasks, collapsed).map(({ task, depth, branch }) => ({ type: 'task', task, depth, branch }));
}

function grouped(
  tasks: readonly Task[],
  groupOf: (task: Task) => string,
  order: (a: string, b: string) => number,
  collapsed: ReadonlySet<string> = NO_COLLAPSED,
): Row[] {
  const groups = new Map<string, Task[]>();
  for (const task of tasks) {
    const name = groupOf(task);
    const members = groups.get(name);
    if (members === undefined) groups.set(name, [task]);
    else members.push(task);
  }
  const rows: Row[] = [];
  for (const name of [...groups.keys()].sort(order)) {
    rows.push({ type: 'group', label: name });
    rows.push(...nestedRows(groups.get(name) ?? [], collapsed));
  }
  return rows;
}

const NO_CONTEXT = 'No context';
const contextOrder = (a: string, b: string): number =>
  a === NO_CONTEXT ? 1 : b === NO_CONTEXT ? -1 : a.localeCompare(b);

const AGENDA = ['Overdue', 'Today', 'Tomorrow', 'Later'];
const BOX_ORDER: readonly string[] = Object.values(BOX_NAMES);

function agenda(tasks: readonly Task[], zone: string, today: string, collapsed: ReadonlySet<string>): Row[] {
  const tomorrow = addDays(today, 1);
  const sorted = [...tasks].sort((a, b) => (a.startAt ?? 0) - (b.startAt ?? 0) || byNewest(a, b));
  return grouped(
    sorted,
    (task) => {
      const day = task.startAt === null ? today : dayOf(task.startAt, zone);
      return day < today ? 'Overdue' : day === today ? 'Today' : day === tomorrow ? 'Tomorrow' : 'Later';
    },
    (a, b) => AGENDA.indexOf(a) - AGENDA.indexOf(b),
    collapsed,
  );
}

export interface ViewInput {
  readonly tasks: readonly Task[];
  readonly projects: ReadonlyMap<string, Label>;
  readonly contexts: ReadonlyMap<string, Label>;
  readonly zone: string;
  readonly today: string;
  /** Tasks whose subtasks are hidden (the person collapsed them). */
  readonly collapsed?: ReadonlySet<string>;
  /** The tasks by id, to hide the subtasks of a trashed parent before the server's answer does. */
  readonly byId?: ReadonlyMap<string, Task>;
}

/** The rows of a view, groups included, before any search. */
export function rowsOf(route: Route, input: ViewInput): Row[] {
  const { zone, today } = input;
  const collapsed = input.collapsed ?? NO_COLLAPSED;
  const byId = input.byId;
  const tasks =
    byId === undefined || !input.tasks.some((task) => (task.parentId ?? null) !== null)
      ? input.tasks
      : input.tasks.filter((task) => !underTrash(task, byId));
  const tasksOnly = (list: Task[]): Row[] => list.map((task) => ({ type: 'task', task }));
  switch (route.kind) {
    case 'settings':
    case 'labels':
    case 'search':
      return [];
    case 'project':
    case 'context': {
      const label = (route.kind === 'project' ? input.projects : input.contexts).get(route.id);
      if (label === undefined) return [];
      const members = tasks.filter((task) => isOpen(task) && task[route.kind] === label.name).sort(byOrderThenPriority);
      return grouped(
        members,
        (task) => BOX_NAMES[task.attribute],
        (a, b) => BOX_ORDER.indexOf(a) - BOX_ORDER.indexOf(b),
        collapsed,
      );
    }
    case 'box':
      switch (route.view) {
        case 'inbox':
        case 'someday':
        case 'waiting': {
          const box = BOX_VIEWS.find((candidate) => candidate.view === route.view)?.box;
          return nestedRows(
            tasks.filter((task) => isOpen(task) && task.attribute === box).sort(byOrderThenPriority),
            collapsed,
          );
        }
        case 'next':
          return grouped(
            tasks.filter((task) => isOpen(task) && task.attribute === 'next').sort(byOrderThenPriority),
            (task) => task.context ?? NO_CONTEXT,
            contextOrder,
            collapsed,
          );
        case 'scheduled':
          return agenda(
            tasks.filter((task) => isOpen(task) && task.attribute === 'plan'),
            zone,
            today,
            collapsed,
          );
        case 'completed':
          return tasksOnly(
            tasks
              .filter((task) => task.completed !== null && task.trashed === null && task.deleted === null)
              .sort((a, b) => (b.completed ?? 0) - (a.completed ?? 0)),
          );
        case 'trash':
          return tasksOnly(
            tasks
              .filter((task) => task.trashed !== null && task.deleted === null)
              .sort((a, b) => (b.trashed ?? 0) - (a.trashed ?? 0)),
          );
      }
  }
}

/**
 * The whole account searched (search.ts), grouped by where each task is, in the navigation's
 * order; each row names its place too.
 */
export function searchRows(tasks: readonly Task[], query: string, context: SearchContext): Row[] {
  const test = compileSearch(query);
  if (test === null) return [];
  const groups = new Map<Where, Task[]>();
  for (const task of tasks) {
    if (!test(task, context)) continue;
    const where = whereOf(task);
    const members = groups.get(where);
    if (members === undefined) groups.set(where, [task]);
    else members.push(task);
  }
  const rows: Row[] = [];
  for (const where of WHERE_ORDER) {
    const members = groups.get(where);
    if (members === undefined) continue;
    members.sort(
      where === 'Completed'
        ? (a, b) => (b.completed ?? 0) - (a.completed ?? 0)
        : where === 'Trash'
          ? (a, b) => (b.trashed ?? 0) - (a.trashed ?? 0)
          : byPriorityThenNewest,
    );
    rows.push({ type: 'group', label: where });
    for (const task of members) rows.push({ type: 'task', task, where });
  }
  return rows;
}

export function viewName(
  route: Route,
  projects: ReadonlyMap<string, Label>,
  contexts: ReadonlyMap<string, Label>,
): string {
  switch (route.kind) {
    case 'settings':
      return 'Settings';
    case 'labels':
      return 'Projects and contexts';
    case 'search':
      return 'Search';
    case 'box':
      return BOX_VIEWS.find((candidate) => candidate.view === route.view)?.name ?? 'Inbox';
    case 'project':
      return projects.get(route.id)?.name ?? 'Project';
    case 'context':
      return contexts.get(route.id)?.name ?? 'Context';
  }
}
