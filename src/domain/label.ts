import type { Micros } from './time.js';

/** Projects and contexts: named groupings of tasks that sync like tasks. */
export type LabelKind = 'project' | 'context';

export interface Project {
  readonly id: string;
  readonly name: string;
  readonly notes: string;
  readonly archived: Micros | null;
  readonly deleted: Micros | null;
  /**
   * The project's color, `#RRGGBB` or `#RRGGBBAA`, or null: set through /v1 (the web app) and
   * by CalDAV clients (`calendar-color`).
   */
  readonly color: string | null;
  readonly created: Micros;
  readonly updated: Micros;
  readonly rev: number;
}

/** A project color as CalDAV clients write one (Apple's `calendar-color`): `#RRGGBB`, maybe with alpha. */
export const PROJECT_COLOR = /^#[0-9A-Fa-f]{6}(?:[0-9A-Fa-f]{2})?$/;

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
  /** Projects only; /v1's `color` and CalDAV's PROPPATCH calendar-color. */
  readonly color?: string | null;
  readonly ifRev?: number;
}
