/** The app's state, as signals: the views read them, the sync engine and the actions write them. */
import { computed, signal } from '@preact/signals';
import type { Label, Settings, Task } from './api.ts';
import { dayOf } from './dates.ts';
import { subtaskCounts } from './subtasks.ts';
import { currentToken } from './token.ts';
import { countByBox, routeOf, rowsOf, searchRows, viewName, type Route } from './views.ts';

export const tasks = signal<ReadonlyMap<string, Task>>(new Map());
export const projects = signal<ReadonlyMap<string, Label>>(new Map());
export const contexts = signal<ReadonlyMap<string, Label>>(new Map());
export const settings = signal<Settings | null>(null);

/** Changes made here and not yet accepted by the server. */
export const waiting = signal(0);
/** False while the server cannot be reached (or answers E502/E503). */
export const online = signal(true);
/** The last thing the app must tell (a conflict, a refused change); shown in an alert. */
export const notice = signal<string | null>(null);
/**
 * The server could not continue from this copy's place (E008: its data was restored from a
 * backup, or the copy was too old) and everything was listed again; shown until dismissed.
 */
export const listedAnew = signal(false);
/** The copy was read (from the browser or the server): the views may show. */
export const ready = signal(false);
/**
 * The list may show: the copy was read, or a first listing has brought its first page of tasks.
 * A first listing of 10,000 tasks is five answers; the Inbox shows with the first while the rest
 * arrive (on a phone-like CPU that halves the wait), and the lists grow as they come.
 */
export const listable = computed(() => ready.value || (settings.value !== null && tasks.value.size > 0));
/**
 * Why no account is shown: signed out (the copy is gone), the server no longer takes the token
 * and the browser's session has ended (changes still waiting stay in the copy for the next
 * sign-in), or the server cannot be reached to sign in.
 */
export const signedOut = signal<'signed-out' | 'session-ended' | 'offline' | null>(null);
/**
 * The tab had no token when the app started, and is asking the browser's session for one (or
 * leaving for the sign-in page): nothing of an account is shown meanwhile.
 */
export const signingIn = signal(currentToken() === null);

export const route = signal<Route>(routeOf(location.hash));
/** What is typed in Search; a saved search's route brings its own. */
export const search = signal(route.value.kind === 'search' ? route.value.query : '');
export const selectedId = signal<string | null>(null);
export const openId = signal<string | null>(null);
export const helpOpen = signal(false);
/** On a phone, whether the navigation is unfolded (the Menu button); a desktop always shows it. */
export const menuOpen = signal(false);

/** Today's date, refreshed every minute, so "today" and "tomorrow" follow the clock. */
export const now = signal(Date.now());
setInterval(() => (now.value = Date.now()), 60_000);

export const zone = computed(() => settings.value?.timezone ?? 'UTC');
export const today = computed(() => dayOf(now.value, zone.value));

export const taskList = computed(() => [...tasks.value.values()]);
/** Done and all subtasks of each parent, by the parent's id. */
export const childCounts = computed(() => subtaskCounts(taskList.value));

const COLLAPSED_KEY = 'task-service.collapsed';

function keptCollapsed(): ReadonlySet<string> {
  try {
    const kept: unknown = JSON.parse(localStorage.getItem(COLLAPSED_KEY) ?? '[]');
    return new Set(Array.isArray(kept) ? kept.filter((id): id is string => typeof id === 'string') : []);
  } catch {
    return new Set();
  }
}

/** Tasks whose subtasks the person hid; kept in the browser, so a reload shows them the same. */
export const collapsed = signal<ReadonlySet<string>>(keptCollapsed());

export function setCollapsed(id: string, hidden: boolean): void {
  const next = new Set(collapsed.value);
  if (hidden) next.add(id);
  else next.delete(id);
  collapsed.value = next;
  try {
    localStorage.setItem(COLLAPSED_KEY, JSON.stringify([...next]));
  } catch {
    // Storage full or refused: collapsed for this page only.
  }
}
export const counts = computed(() => countByBox(taskList.value));

/** Labels by id, live ones only, sorted by name. */
export const sortedProjects = computed(() => [...projects.value.values()].sort((a, b) => a.name.localeCompare(b.name)));
/** The projects the navigation lists: archived ones only show where projects are managed. */
export const activeProjects = computed(() =>
  sortedProjects.value.filter((project) => (project.archived ?? null) === null),
);
/** Each project's color by its name, as tasks name their project. */
export const projectColors = computed(
  () =>
    new Map([...projects.value.values()].flatMap((project) => (project.color ? [[project.name, project.color]] : []))),
);
export const sortedContexts = computed(() => [...contexts.value.values()].sort((a, b) => a.name.localeCompare(b.name)));

export const currentViewName = computed(() => viewName(route.value, projects.value, contexts.value));

const viewRows = computed(() =>
  rowsOf(route.value, {
    tasks: taskList.value,
    projects: projects.value,
    contexts: contexts.value,
    zone: zone.value,
    today: today.value,
    collapsed: collapsed.value,
    byId: tasks.value,
  }),
);

const foundRows = computed(() => searchRows(taskList.value, search.value, { zone: zone.value, today: today.value }));

/** Whether the list shows search results (from the whole account) rather than the view. */
export const searching = computed(() => search.value.trim() !== '');

/** What the list shows: the view, or what a search found in the whole account. */
export const rows = computed(() => (searching.value ? foundRows.value : viewRows.value));
