import { NEW_TASK, type LabelRef, type Task, type TaskDraft } from './task.js';
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

/**
 * A task with every field given: an import sets the task to exactly this. Its fields are the
 * stored task's, but for its labels, given by id (our JSON) or by name (other formats: found, or
 * made, by name), and what the store keeps of its own (tombstone, stamps).
 */
export interface PortableTask extends Omit<
  Task,
  'deleted' | 'project' | 'context' | 'reminderDue' | 'created' | 'updated' | 'rev'
> {
  readonly project: LabelRef;
  readonly context: LabelRef;
}

/** The fields a format gives a task when it has no place for them: a new task's. */
export const NEW_PORTABLE_TASK: Omit<PortableTask, 'id'> = withoutTombstone(NEW_TASK);

function withoutTombstone(task: Omit<TaskDraft, 'id'>): Omit<PortableTask, 'id'> {
  const { deleted, reminderDue, ...fields } = task;
  return fields;
}

/** A stored task as an export writes it: its labels by id, without its tombstone and stamps. */
export function portableOf(task: Task): PortableTask {
  const { deleted, reminderDue, created, updated, rev, project, context, ...fields } = task;
  return {
    ...fields,
    project: project === null ? null : { id: project.id },
    context: context === null ? null : { id: context.id },
  };
}

/** The files an account is exported to. */
export const EXPORT_FORMATS = ['json', 'ics'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The files an account is imported from. */
export const IMPORT_FORMATS = ['json', 'ics', 'todoist'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** Records an import report names one by one (the counts cover every record). */
export const IMPORT_PREVIEW_SIZE = 100;

export interface PortableAccount {
  readonly settings?: PortableSettings;
  readonly projects: readonly PortableProject[];
  readonly contexts: readonly PortableContext[];
  readonly tasks: readonly PortableTask[];
  /** What the source held that no field takes, one line each: listed, never dropped silently. */
  readonly unmapped: readonly string[];
}
