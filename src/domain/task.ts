import type { Micros } from './time.js';

export const ATTRIBUTES = ['inbox', 'next', 'plan', 'noplan', 'waiting'] as const;
export type Attribute = (typeof ATTRIBUTES)[number];

export type Priority = 0 | 1 | 2 | 3;

/** A reference to a project or context, kept on the task with its current name. */
export interface Label {
  readonly id: string;
  readonly name: string;
}

/** A task as stored: every field set. Text is raw (never escaped). */
export interface Task {
  readonly id: string;
  readonly title: string;
  readonly notes: string;
  readonly attribute: Attribute;
  readonly allDay: boolean;
  readonly startAt: Micros | null;
  readonly endAt: Micros | null;
  readonly completed: Micros | null;
  readonly trashed: Micros | null;
  readonly deleted: Micros | null;
  readonly project: Label | null;
  readonly context: Label | null;
  readonly tags: readonly string[];
  readonly priority: Priority;
  readonly repeater: string | null;
  /**
   * The properties of an imported iCalendar VTODO that no field takes (another app's `X-…`, `GEO`,
   * `URL`…), as their unfolded content lines, each ended by CRLF; `''` for none. Kept for the next
   * iCalendar export: the API neither shows nor takes it (domain/ical-extras.ts).
   */
  readonly icalExtras: string;
  readonly created: Micros;
  readonly updated: Micros;
  readonly rev: number;
}

/** A task about to be written: the store stamps `created` (on insert), `updated` and `rev`. */
export type TaskDraft = Omit<Task, 'created' | 'updated' | 'rev'>;

/**
 * How a request names a project or context: by name (created when missing), by id, or both (a
 * whole task sent back: whichever of the two the client changed counts).
 */
export type LabelRef = { readonly name: string; readonly id?: string } | { readonly id: string } | null;

/** A task as a client sent it, already parsed into typed values: absent fields stay unchanged. */
export interface TaskInput {
  readonly id?: string;
  readonly title?: string;
  readonly notes?: string;
  readonly attribute?: Attribute;
  readonly allDay?: boolean;
  readonly startAt?: Micros | null;
  readonly endAt?: Micros | null;
  readonly completed?: Micros | null;
  readonly trashed?: Micros | null;
  readonly deleted?: Micros | null;
  readonly project?: LabelRef;
  readonly context?: LabelRef;
  readonly tags?: readonly string[];
  readonly priority?: Priority;
  readonly repeater?: string | null;
  /** Set by imports only: a request of the API has no field for it, so its changes keep it. */
  readonly icalExtras?: string;
  readonly ifRev?: number;
}

export const TASK_LIMITS = {
  idPattern: /^[A-Za-z0-9_\-+/=.]{1,64}$/,
  titleMax: 1000,
  notesMax: 100_000,
  tagsMax: 50,
  tagMax: 100,
  /** The kept iCalendar properties of one task, in characters: a few dozen lines of another app. */
  icalExtrasMax: 32_768,
} as const;
