import { createHash } from 'node:crypto';
import type { Account } from '../domain/account.js';
import {
  CalendarError,
  collectionOf,
  defaultResourceName,
  idOfDefaultName,
  resourceNameOf,
  resourceNameProblem,
  sameCollection,
  type CollectionId,
} from '../domain/calendar.js';
import { invalid } from '../domain/errors.js';
import { icalExtraLines } from '../domain/ical-extras.js';
import type { Project } from '../domain/label.js';
import { firstTextProblem } from '../domain/portable-text.js';
import type { PortableTask } from '../domain/portable.js';
import type { StorageQuota } from '../domain/storage-quota.js';
import { sameField, TASK_FIELD_NAMES, TASK_LIMITS, type Task, type TaskField, type TaskInput } from '../domain/task.js';
import type { Clock } from '../domain/time.js';
import type { Store, WriteTx } from '../store/store.js';
import { CalendarDataError, readCalendarResource } from './formats/calendar-resource.js';
import { readTodo } from './formats/vtodo.js';
import { trashAndDeleteCollection } from './collection-delete.js';
import { writeLabels } from './labels.js';
import { writeShowingLabelsAhead } from './labels-ahead.js';
import type { ListingService } from './listing.js';
import { withinQuota } from './storage-quota.js';
import { upsertOne, writeWithSubtreesAhead } from './tasks.js';

/**
 * CalDAV's use cases (CALDAV.md): tasks as resources of collections, collections as projects.
 * Every write is one transaction through the same rules as a /v1 write (upsertOne, writeLabels,
 * the storage quota): one change log, one notion of a change.
 */

/** What a conditional request said, its ETags already read as change numbers by the edge. */
export interface Conditions {
  /** If-Match: `*`, or the revs it names (an ETag that is no rev of ours is no rev: never matches). */
  readonly ifMatch?: '*' | readonly number[];
  /** If-None-Match: `*`, or the revs it names. */
  readonly ifNoneMatch?: '*' | readonly number[];
}

export interface PutRequest {
  readonly collection: CollectionId;
  readonly name: string;
  readonly body: string;
  readonly conditions: Conditions;
}

export interface PutOutcome {
  readonly created: boolean;
  readonly task: Task;
  /** Whether the stored task says what was sent (RFC 4791 5.3.4: else the answer has no ETag). */
  readonly asSent: boolean;
}

function holds(conditions: Conditions, current: Task | undefined): boolean {
  const { ifMatch, ifNoneMatch } = conditions;
  if (ifMatch !== undefined) {
    if (current === undefined) return false;
    if (ifMatch !== '*' && !ifMatch.includes(current.rev)) return false;
  }
  if (ifNoneMatch !== undefined && current !== undefined) {
    if (ifNoneMatch === '*' || ifNoneMatch.includes(current.rev)) return false;
  }
  return true;
}

/** The UID a task is served with: the client's, kept when it is no id, else the id. */
export function uidOf(task: Pick<Task, 'id' | 'icalExtras'>): string {
  for (const line of icalExtraLines(task.icalExtras)) {
    if (line.startsWith('UID:')) return line.slice('UID:'.length);
  }
  return task.id;
}

function hashedId(text: string): string {
  return `ics-${createHash('sha256').update(text).digest('base64url').slice(0, 22)}`;
}

/**
 * The id a name most likely stands for: `<id>.ics`, else the id a UID that is no id was given
 * when the name is `<UID>.ics` (as most clients name what they store).
 */
function idForName(name: string): string {
  return idOfDefaultName(name) ?? hashedId(name.replace(/\.ics$/, ''));
}

/** The fields a VTODO gives a task, as a change of the task in that collection. */
function inputOf(read: PortableTask, collection: CollectionId, box: boolean, existing: Task | undefined): TaskInput {
  const attribute = box
    ? read.attribute
    : existing === undefined || existing.trashed !== null || existing.deleted !== null
      ? undefined
      : existing.attribute === 'plan' && read.startAt === null
        ? 'inbox'
        : existing.attribute;
  const { attribute: sentAttribute, trashed, project, ...fields } = read;
  return {
    ...fields,
    ...(attribute === undefined ? {} : { attribute }),
    trashed: null,
    deleted: null,
    project: collection.kind === 'inbox' ? null : { id: collection.projectId },
  };
}

/**
 * Whether a VTODO's parent can be the task's here: a live task of the same collection. Clients
 * store a subtask before its parent, or keep them in two calendars; then RELATED-TO is kept as
 * sent (vtodo.ts, keepParentLines) rather than the task refused.
 */
async function parentHere(tx: WriteTx, parentId: string | null, collection: CollectionId): Promise<boolean> {
  if (parentId === null) return true;
  const parent = await tx.get('task', parentId);
  const where = parent === undefined || parent.deleted !== null ? undefined : collectionOf(parent);
  return where !== undefined && sameCollection(where, collection);
}

/** The fields a VTODO does not carry back as a client stored it (the collection is the project). */
const NOT_SENT_BACK = ['id', 'attribute', 'trashed', 'deleted', 'project', 'context', 'reminderDue'] as const;
const NOT_SENT_BACK_SET: ReadonlySet<TaskField> = new Set(NOT_SENT_BACK);

function sentBack(name: TaskField): name is Exclude<TaskField, (typeof NOT_SENT_BACK)[number]> {
  return !NOT_SENT_BACK_SET.has(name);
}

/** Whether the stored task says what the VTODO said: then the client's copy is the stored one. */
function storedAsSent(stored: Task, read: PortableTask): boolean {
  const contextName = stored.context?.name ?? null;
  const readContext = read.context !== null && 'name' in read.context ? read.context.name : null;
  return (
    contextName === readContext && TASK_FIELD_NAMES.every((name) => !sentBack(name) || sameField(name, stored, read))
  );
}

/** The first refusal of the API's text rules, as an invalid field. */
function checkTexts(task: PortableTask): void {
  const problem = firstTextProblem({ projects: [], contexts: [], tasks: [task], unmapped: [] });
  if (problem !== undefined) throw invalid(problem.field, problem.reason);
}

/** Projects found and made by name, kept apart by a suffix: `Work (2)`. */
async function freeProjectName(tx: WriteTx, wanted: string, selfId: string): Promise<string> {
  for (let suffix = 1; ; suffix += 1) {
    const name = suffix === 1 ? wanted : `${wanted} (${suffix})`;
    const holder = await tx.findLive('project', name);
    if (holder === undefined || holder.id === selfId) return name;
  }
}

export class CalendarService {
  constructor(
    private readonly store: Store,
    private readonly listing: ListingService,
    private readonly quota: StorageQuota,
    private readonly now: Clock,
  ) {}

  /** The account's live projects, each a collection (with the inbox, which is not a project). */
  async projects(accountId: number): Promise<Project[]> {
    const listing = await this.listing.open(accountId, 'project', {});
    try {
      const projects: Project[] = [];
      for await (const batch of listing.batches())
        projects.push(...batch.filter((project) => project.deleted === null));
      return projects;
    } finally {
      await listing.close();
    }
  }

  async project(accountId: number, projectId: string): Promise<Project | undefined> {
    const project = await this.store.get(accountId, 'project', projectId);
    return project === undefined || project.deleted !== null ? undefined : project;
  }

  /** The task a collection holds under a name, or undefined. */
  async find(accountId: number, collection: CollectionId, name: string): Promise<Task | undefined> {
    return (await this.findMany(accountId, collection, [name])).get(name);
  }

  /**
   * The tasks a collection holds under these names. Each is looked up by the id it most likely
   * stands for; the names that are not found so (a name a client chose that is neither `<id>.ics`
   * nor `<UID>.ics`, or none at all) are looked for in one pass over the account's tasks.
   */
  async findMany(accountId: number, collection: CollectionId, names: readonly string[]): Promise<Map<string, Task>> {
    const found = new Map<string, Task>();
    const at = (task: Task | undefined, name: string): task is Task => {
      if (task === undefined) return false;
      const where = collectionOf(task);
      return where !== undefined && sameCollection(where, collection) && resourceNameOf(task) === name;
    };
    const rest = new Set<string>();
    for (const name of names) {
      if (resourceNameProblem(name) !== undefined) continue;
      const likely = await this.store.get(accountId, 'task', idForName(name));
      if (at(likely, name)) found.set(name, likely);
      else rest.add(name);
    }
    if (rest.size === 0) return found;
    const listing = await this.listing.open(accountId, 'task', {});
    try {
      for await (const batch of listing.batches()) {
        for (const task of batch) {
          const name = resourceNameOf(task);
          if (rest.has(name) && at(task, name)) {
            found.set(name, task);
            rest.delete(name);
          }
        }
        if (rest.size === 0) break;
      }
      return found;
    } finally {
      await listing.close();
    }
  }

  /**
   * A PUT of one task: created or replaced as a whole (fields the VTODO lacks are cleared), under
   * the name the client chose, in the collection's project.
   */
  async put(account: Account, request: PutRequest): Promise<PutOutcome> {
    const { collection, name, conditions } = request;
    const nameProblem = resourceNameProblem(name);
    if (nameProblem !== undefined) throw new CalendarDataError('valid-calendar-object-resource', nameProblem);
    const resource = readCalendarResource(request.body);
    if (resource.parentUids.includes(resource.uid)) throw new CalendarError({ kind: 'self_parent' });
    const zone = account.timezone;
    return this.store.write(account.id, (tx) =>
      withinQuota(tx, this.quota, async () => {
        if (collection.kind === 'project') {
          const project = await tx.get('project', collection.projectId);
          if (project === undefined || project.deleted !== null) throw new CalendarError({ kind: 'not_found' });
        }
        const { id, existing } = await this.#taskOfUid(tx, resource.uid, name);
        const where = existing === undefined ? undefined : collectionOf(existing);
        let current: Task | undefined;
        if (existing !== undefined && where !== undefined) {
          if (!sameCollection(where, collection))
            throw new CalendarError({ kind: 'uid_in_other_collection', href: where, name: resourceNameOf(existing) });
          if (resourceNameOf(existing) !== name)
            throw new CalendarError({ kind: 'uid_conflict', name: resourceNameOf(existing) });
          current = existing;
        } else {
          // Another UID under this name: the resource is that task, and its UID cannot change.
          const other = await tx.get('task', idForName(name));
          const otherWhere = other === undefined ? undefined : collectionOf(other);
          if (other !== undefined && otherWhere !== undefined && sameCollection(otherWhere, collection)) {
            if (resourceNameOf(other) === name) {
              if (!holds(conditions, other)) throw new CalendarError({ kind: 'precondition_failed' });
              throw new CalendarError({ kind: 'uid_changed' });
            }
          }
        }
        if (!holds(conditions, current)) throw new CalendarError({ kind: 'precondition_failed' });
        const input = {
          zone,
          dialect: 'caldav' as const,
          id,
          ...(name === defaultResourceName(id) ? {} : { resourceName: name }),
        };
        const first = readTodo(resource.todo, input, 0);
        // A task naming itself as its parent is refused, as /v1 refuses it.
        const read =
          first.task.parentId === id || (await parentHere(tx, first.task.parentId, collection))
            ? first
            : readTodo(resource.todo, { ...input, keepParentLines: true }, 0);
        checkTexts(read.task);
        // Kept whole or refused: a client's property is never dropped without a word.
        const [notKept] = read.notKept;
        if (notKept !== undefined) throw new CalendarDataError('valid-calendar-object-resource', notKept);
        const [badDate] = read.badDates;
        if (badDate !== undefined) throw new CalendarDataError('valid-calendar-object-resource', badDate);
        const task = await upsertOne(tx, zone, inputOf(read.task, collection, read.namedBox, existing), this.now());
        return { created: current === undefined, task, asSent: storedAsSent(task, read.task) };
      }),
    );
  }

  /** The task a UID stands for (live, trashed or deleted), or the id a new one gets. */
  async #taskOfUid(tx: WriteTx, uid: string, name: string): Promise<{ id: string; existing: Task | undefined }> {
    if (TASK_LIMITS.idPattern.test(uid)) return { id: uid, existing: await tx.get('task', uid) };
    const stem = idOfDefaultName(name);
    const candidates = [...(stem === undefined ? [] : [stem]), hashedId(uid)];
    let free: string | undefined;
    for (const candidate of candidates) {
      const task = await tx.get('task', candidate);
      if (task !== undefined && uidOf(task) === uid) return { id: candidate, existing: task };
      if (free === undefined && (task === undefined || task.deleted !== null)) free = candidate;
    }
    return { id: free ?? hashedId(`${uid}\n${name}`), existing: undefined };
  }

  /** DELETE of a task: its tombstone, as a /v1 delete. */
  async delete(account: Account, collection: CollectionId, name: string, conditions: Conditions): Promise<void> {
    const found = await this.find(account.id, collection, name);
    if (found === undefined) throw new CalendarError({ kind: 'not_found' });
    // A large subtree below is deleted ahead, as /v1 does (tasks.ts).
    await writeWithSubtreesAhead(this.store, account, this.now, 2, async (tx, bound) => {
      const current = await this.#stillAt(tx, found.id, collection, name);
      if (!holds(conditions, current)) throw new CalendarError({ kind: 'precondition_failed' });
      await upsertOne(tx, account.timezone, { id: found.id, deleted: this.now() }, this.now(), bound);
    });
  }

  /** MOVE of a task to another collection (its project changes, its id stays) and name. */
  async move(
    account: Account,
    from: { readonly collection: CollectionId; readonly name: string },
    to: { readonly collection: CollectionId; readonly name: string },
    conditions: Conditions & { readonly overwrite: boolean },
  ): Promise<{ readonly created: boolean }> {
    const nameProblem = resourceNameProblem(to.name);
    if (nameProblem !== undefined) throw new CalendarDataError('valid-calendar-object-resource', nameProblem);
    const found = await this.find(account.id, from.collection, from.name);
    if (found === undefined) throw new CalendarError({ kind: 'not_found' });
    const occupant = await this.find(account.id, to.collection, to.name);
    // A large subtree below (of the task, or of the one it replaces) is changed ahead, as /v1 does.
    return writeWithSubtreesAhead(this.store, account, this.now, 4, async (tx, bound) => {
      const current = await this.#stillAt(tx, found.id, from.collection, from.name);
      if (!holds(conditions, current)) throw new CalendarError({ kind: 'precondition_failed' });
      if (to.collection.kind === 'project') {
        const project = await tx.get('project', to.collection.projectId);
        if (project === undefined || project.deleted !== null) throw new CalendarError({ kind: 'not_found' });
      }
      const replaced = occupant === undefined || occupant.id === found.id ? undefined : occupant;
      if (replaced !== undefined) {
        if (!conditions.overwrite) throw new CalendarError({ kind: 'precondition_failed' });
        await upsertOne(tx, account.timezone, { id: replaced.id, deleted: this.now() }, this.now(), bound);
      }
      const withoutName = icalExtraLines(found.icalExtras)
        .filter((line) => !line.startsWith('X-TASK-SERVICE-RESOURCE:'))
        .map((line) => `${line}\r\n`)
        .join('');
      const named = to.name === defaultResourceName(found.id) ? '' : `X-TASK-SERVICE-RESOURCE:${to.name}\r\n`;
      await upsertOne(
        tx,
        account.timezone,
        {
          id: found.id,
          project: to.collection.kind === 'inbox' ? null : { id: to.collection.projectId },
          icalExtras: `${named}${withoutName}`,
        },
        this.now(),
        bound,
      );
      return { created: replaced === undefined };
    });
  }

  async #stillAt(tx: WriteTx, id: string, collection: CollectionId, name: string): Promise<Task | undefined> {
    const task = await tx.get('task', id);
    const where = task === undefined ? undefined : collectionOf(task);
    if (
      task === undefined ||
      where === undefined ||
      !sameCollection(where, collection) ||
      resourceNameOf(task) !== name
    )
      return undefined;
    return task;
  }

  /**
   * MKCALENDAR: a project whose id is the segment, named by the display name (or the segment),
   * with a free name. A deleted project of that id comes back, empty.
   */
  async makeCollection(
    account: Account,
    segment: string,
    displayName: string | undefined,
    color: string | null,
  ): Promise<Project> {
    if (!TASK_LIMITS.idPattern.test(segment)) throw new CalendarError({ kind: 'bad_segment' });
    return this.store.write(account.id, (tx) =>
      withinQuota(tx, this.quota, async () => {
        const existing = await tx.get('project', segment);
        if (existing !== undefined && existing.deleted === null) throw new CalendarError({ kind: 'collection_exists' });
        const name = await freeProjectName(tx, displayName ?? segment, segment);
        const input = { id: segment, name, deleted: null, archived: null, color };
        const [project] = await writeLabels(tx, 'project', [input], false);
        if (project === undefined) throw new Error('a project write returned nothing');
        return project;
      }),
    );
  }

  /**
   * PROPPATCH: the project's new name (made free by a suffix like any other) and color; what the
   * patch does not name stays. A name shown on many tasks is shown on them ahead, as /v1 does.
   */
  async patchCollection(
    account: Account,
    projectId: string,
    patch: { readonly displayName?: string; readonly color?: string | null },
  ): Promise<Project> {
    return writeShowingLabelsAhead(this.store, account.id, async (tx, bound) => {
      const existing = await tx.get('project', projectId);
      if (existing === undefined || existing.deleted !== null) throw new CalendarError({ kind: 'not_found' });
      const name =
        patch.displayName === undefined ? undefined : await freeProjectName(tx, patch.displayName, projectId);
      const input = {
        id: projectId,
        ...(name === undefined ? {} : { name }),
        ...(patch.color === undefined ? {} : { color: patch.color }),
      };
      const [project] = await writeLabels(tx, 'project', [input], false, bound);
      if (project === undefined) throw new Error('a project write returned nothing');
      return project;
    });
  }

  /**
   * DELETE of a collection: its tasks go to the trash, then the project is deleted; on SQLite a
   * large one is moved to the trash ahead, in commits other accounts' writes come between.
   */
  async deleteCollection(account: Account, projectId: string): Promise<void> {
    const deleted = await trashAndDeleteCollection(this.store, account, projectId, this.now);
    if (!deleted) throw new CalendarError({ kind: 'not_found' });
  }
}
