import type { Attribute, LabelRef, Priority } from './task.js';
import type { Micros } from './time.js';

/**
 * An account's data on its way into or out of another file (our JSON, iCalendar, Todoist's
 * backup): what a format reads or writes, before the import service applies it. Ids are the
 * records' own (JSON) or derived from the source (ICS UID, Todoist row), so that importing the
 * same file twice finds the same records.
 */
export interface PortableSettings {
  readonly nickname?: string;
  readonly timezone?: string;
  readonly language?: string;
  readonly weekStart?: number;
}

export interface PortableProject {
  readonly id: string;
  readonly name: string;
  readonly notes: string;
  readonly archived: Micros | null;
}

export interface PortableContext {
  readonly id: string;
  readonly name: string;
}

/** A task with every field given: an import sets the task to exactly this. */
export interface PortableTask {
  readonly id: string;
  readonly title: string;
  readonly notes: string;
  readonly attribute: Attribute;
  readonly allDay: boolean;
  readonly startAt: Micros | null;
  readonly endAt: Micros | null;
  readonly completed: Micros | null;
  readonly trashed: Micros | null;
  /** By id (our JSON) or by name (other formats: found, or made, by name). */
  readonly project: LabelRef;
  readonly context: LabelRef;
  readonly tags: readonly string[];
  readonly priority: Priority;
  readonly repeater: string | null;
  /** The iCalendar properties no field takes (Task.icalExtras): from an ICS file or our JSON, else `''`. */
  readonly icalExtras: string;
}

export interface PortableAccount {
  readonly settings?: PortableSettings;
  readonly projects: readonly PortableProject[];
  readonly contexts: readonly PortableContext[];
  readonly tasks: readonly PortableTask[];
  /** What the source held that no field takes, one line each: listed, never dropped silently. */
  readonly unmapped: readonly string[];
}
