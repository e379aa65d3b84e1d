import type { Micros } from './time.js';

/** Projects and contexts: named groupings of tasks that sync like tasks. */
export type LabelKind = 'project' | 'context';

export interface Project {
  readonly id: string;
  readonly name: string;
  readonly notes: string;
  readonly archived: Micros | null;
  readonly deleted: Micros | null;
  readonly created: Micros;
  readonly updated: Micros;
  readonly rev: number;
}

export interface Context {
  readonly id: string;
  readonly name: string;
  readonly deleted: Micros | null;
  readonly created: Micros;
  readonly updated: Micros;
  readonly rev: number;
}

export type ProjectDraft = Omit<Project, 'created' | 'updated' | 'rev'>;
export type ContextDraft = Omit<Context, 'created' | 'updated' | 'rev'>;

export const LABEL_NAME_MAX = 200;

/** A project or context as a client sent it, parsed: absent fields stay unchanged. */
export interface LabelInput {
  readonly id?: string;
  readonly name?: string;
  readonly notes?: string;
  readonly archived?: Micros | null;
  readonly deleted?: Micros | null;
  readonly ifRev?: number;
}
