import type { Context, ContextDraft, Project, ProjectDraft } from './label.js';
import type { Task, TaskDraft } from './task.js';

/** The records an account syncs, by the name of their kind (`not found: task x`). */
export interface RecordsByKind {
  readonly task: Task;
  readonly project: Project;
  readonly context: Context;
}
export type SyncKind = keyof RecordsByKind;

/** Every kind once: a kind added to RecordsByKind without its line here does not compile. */
const KIND_LIST: { readonly [K in SyncKind]: K } = { task: 'task', project: 'project', context: 'context' };

/** The kinds, in the order resources are listed and routes registered. */
export const SYNC_KINDS: readonly SyncKind[] = Object.values(KIND_LIST);

/** `A | B` as `A & B`: an intersection of functions is one overloaded function. */
type IntersectionOf<U> = (U extends unknown ? (each: U) => void : never) extends (all: infer I) => void ? I : never;

/**
 * A maker of each kind's entry of a table T, typed once per kind (an overload for each), so the
 * compiler checks that what it makes for every kind is that kind's entry. A function generic in
 * the kind, `<K extends SyncKind>(kind: K) => …`, is one.
 */
export type EntryMaker<T extends { readonly [K in SyncKind]: unknown }> = IntersectionOf<
  { readonly [K in SyncKind]: (kind: K) => T[K] }[SyncKind]
>;

/** A table with one entry per kind, each made by `make` for its own kind: it needs no line when a kind is added. */
export function byKind<T extends { readonly [K in SyncKind]: unknown }>(make: EntryMaker<T>): T {
  // The maker is typed once per kind (EntryMaker), so each entry is its kind's; the
  // compiler cannot follow the kind through the loop.
  const entry = make as (kind: SyncKind) => unknown;
  return Object.fromEntries(SYNC_KINDS.map((kind) => [kind, entry(kind)])) as T;
}

/** A record about to be written: the store stamps `created` (on insert), `updated` and `rev`. */
export interface DraftsByKind {
  readonly task: TaskDraft;
  readonly project: ProjectDraft;
  readonly context: ContextDraft;
}

/** The kinds whose live records have unique names: projects and contexts. */
export type NamedKind = 'project' | 'context';

/** Where an account's data stands: every change raises `rev`, every purge `purgedRev`. */
export interface AccountHead {
  readonly rev: number;
  readonly purgedRev: number;
}

/**
 * A place in an account's changes, as a cursor or a CalDAV sync token carries it: a change number
 * in one life of the store. `epoch` names that life: new when the store is made and at each
 * restore, so a position from before a restore, or from another store, is known to be one.
 * `purgedRev` is the account's purge mark when it was handed out: a purge since then, and only
 * that, can have taken changes after it away.
 */
export interface SyncPosition {
  readonly epoch: string;
  readonly rev: number;
  readonly purgedRev: number;
}

/**
 * A position as a client hands it back: `epoch` null when it was handed out before epochs (a
 * `c1.` cursor, which carries no purge mark either: 0).
 */
export interface ReturnedPosition {
  readonly epoch: string | null;
  readonly rev: number;
  readonly purgedRev: number;
}

/**
 * What a write answered, kept as domain data: the records as stored, the zone they were shown in,
 * and whether the request named one record or several. A replay is rendered from it anew.
 */
export interface WriteOutcome<K extends SyncKind = SyncKind> {
  readonly kind: K;
  readonly zone: string;
  readonly many: boolean;
  readonly records: readonly RecordsByKind[K][];
}
