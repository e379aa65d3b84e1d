import { icalExtraLines } from './ical-extras.js';
import { TASK_LIMITS, type Task } from './task.js';

/**
 * CalDAV's view of an account (CALDAV.md): one collection per live project, plus the inbox for
 * tasks without one; a task is a resource of its project's collection, under the name a client
 * stored it by, or `<id>.ics`.
 */

/** A collection: the inbox, or a project's (by the project id, which is its path segment). */
export type CollectionId = { readonly kind: 'inbox' } | { readonly kind: 'project'; readonly projectId: string };

export const INBOX: CollectionId = { kind: 'inbox' };

/** Where a task is shown: trashed and deleted tasks are in no collection. */
export function collectionOf(task: Task): CollectionId | undefined {
  if (task.deleted !== null || task.trashed !== null) return undefined;
  return task.project === null ? INBOX : { kind: 'project', projectId: task.project.id };
}

export function sameCollection(a: CollectionId, b: CollectionId): boolean {
  return a.kind === 'inbox' ? b.kind === 'inbox' : b.kind === 'project' && a.projectId === b.projectId;
}

/** The kept line that names a task's resource, when a client chose a name other than `<id>.ics`. */
export const RESOURCE_NAME_PROPERTY = 'X-TASK-SERVICE-RESOURCE';

const RESOURCE_SUFFIX = '.ics';

/** The most characters of a resource name a client may choose (a UUID and `.ics` need 40). */
export const RESOURCE_NAME_MAX = 200;

export function defaultResourceName(id: string): string {
  return `${id}${RESOURCE_SUFFIX}`;
}

/** The name a task is served under: the one its client chose, else `<id>.ics`. */
export function resourceNameOf(task: Pick<Task, 'id' | 'icalExtras'>): string {
  if (task.icalExtras !== '') {
    const prefix = `${RESOURCE_NAME_PROPERTY}:`;
    for (const line of icalExtraLines(task.icalExtras)) {
      if (line.startsWith(prefix)) return line.slice(prefix.length);
    }
  }
  return defaultResourceName(task.id);
}

/** Why a name cannot be a resource's, or undefined when it can (a path segment of printable text). */
export function resourceNameProblem(name: string): string | undefined {
  if (name === '' || name.length > RESOURCE_NAME_MAX) return `a resource name has 1-${RESOURCE_NAME_MAX} characters`;
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/[\u0000-\u001F\u007F/\\]/.test(name)) return 'a resource name has no control characters or slashes';
  return undefined;
}

/** The id a name stands for when it is `<a valid id>.ics`, else undefined. */
export function idOfDefaultName(name: string): string | undefined {
  if (!name.endsWith(RESOURCE_SUFFIX)) return undefined;
  const stem = name.slice(0, -RESOURCE_SUFFIX.length);
  return TASK_LIMITS.idPattern.test(stem) ? stem : undefined;
}

/** Why a CalDAV request was refused, beyond the rules every write follows (DomainError). */
export type CalendarProblem =
  /** If-Match or If-None-Match did not hold: 412. */
  | { readonly kind: 'precondition_failed' }
  /** The UID is a task of another collection: moving is MOVE's (409). */
  | { readonly kind: 'uid_in_other_collection'; readonly href: CollectionId; readonly name: string }
  /** The UID is already another resource of this collection (403 no-uid-conflict). */
  | { readonly kind: 'uid_conflict'; readonly name: string }
  /** The resource's UID cannot change (403). */
  | { readonly kind: 'uid_changed' }
  /** No such resource or collection (404). */
  | { readonly kind: 'not_found' }
  /** A collection of that segment exists (MKCALENDAR: 405). */
  | { readonly kind: 'collection_exists' }
  /** The inbox cannot be deleted, renamed or made (403). */
  | { readonly kind: 'inbox_fixed' }
  /** A segment that is no valid id cannot name a new project (403). */
  | { readonly kind: 'bad_segment' }
  /** A task cannot be its own parent (403). */
  | { readonly kind: 'self_parent' };

export class CalendarError extends Error {
  constructor(readonly problem: CalendarProblem) {
    super(problem.kind);
    this.name = 'CalendarError';
  }
}
