import type { z } from 'zod';
import type { Account } from '../domain/account.js';
import type { LabelInput } from '../domain/label.js';
import { SYNC_KINDS, type RecordsByKind, type SyncKind, type WriteOutcome } from '../domain/sync.js';
import type { TaskInput } from '../domain/task.js';
import type { WriteRequest } from '../service/idempotency.js';
import type { Services } from '../service/services.js';
import { contextShape, projectShape, readContextBody, readProjectBody } from './schemas/label.js';
import { readTaskBody, taskShape } from './schemas/task.js';
import { renderContext, renderProject, renderTask } from './wire/render.js';
import { contextList, projectList, taskList, wireContext, wireProject, wireTask } from './wire/shapes.js';

/** What a POST body of each kind is parsed into. */
interface InputsByKind {
  readonly task: TaskInput;
  readonly project: LabelInput;
  readonly context: LabelInput;
}

/**
 * How the OpenAPI document shows a resource (openapi/): its component schemas are named after
 * `name` (`Task`, `TaskList`, `TaskEntries`, `TaskWrite`).
 */
export interface ResourceShapes<K extends SyncKind> {
  readonly name: Capitalize<K>;
  /** One record of a POST body, as the body schema reads it. */
  readonly write: z.ZodType;
  /** One record as answered. */
  readonly one: z.ZodType;
  /** One page of a listing. */
  readonly list: z.ZodType;
}

/**
 * One synced resource (`/v1/tasks`, …): its path, how a body is read, how records are shown, its
 * use case, its shapes in the OpenAPI document.
 */
export interface RecordResource<K extends SyncKind> {
  readonly path: string;
  readonly kind: K;
  readonly shapes: ResourceShapes<K>;
  readonly render: (record: RecordsByKind[K], zone: string) => string;
  readonly readBody: (body: unknown, zone: string) => { inputs: InputsByKind[K][]; asArray: boolean };
  readonly upsert: (
    services: Services,
    account: Account,
    inputs: readonly InputsByKind[K][],
    request: WriteRequest,
  ) => Promise<WriteOutcome<K>>;
}

/** Every synced kind's resource: a kind added to RecordsByKind without one here does not compile. */
export const RECORD_RESOURCES: { readonly [K in SyncKind]: RecordResource<K> } = {
  task: {
    path: 'tasks',
    kind: 'task',
    shapes: { name: 'Task', write: taskShape, one: wireTask, list: taskList },
    render: renderTask,
    readBody: readTaskBody,
    upsert: (services, account, inputs, request) => services.tasks.upsert(account, inputs, request),
  },
  project: {
    path: 'projects',
    kind: 'project',
    shapes: { name: 'Project', write: projectShape, one: wireProject, list: projectList },
    render: renderProject,
    readBody: readProjectBody,
    upsert: (services, account, inputs, request) => services.labels.upsert(account, 'project', inputs, request),
  },
  context: {
    path: 'contexts',
    kind: 'context',
    shapes: { name: 'Context', write: contextShape, one: wireContext, list: contextList },
    render: renderContext,
    readBody: readContextBody,
    upsert: (services, account, inputs, request) => services.labels.upsert(account, 'context', inputs, request),
  },
};

/** Hands each resource of the table to `visit`, typed by its own kind, in the order of SYNC_KINDS. */
export function eachResource(
  resources: typeof RECORD_RESOURCES,
  visit: <K extends SyncKind>(resource: RecordResource<K>) => void,
): void {
  // Generic in K, so that each resource is handed over typed by its own kind.
  const visitKind = <K extends SyncKind>(kind: K): void => visit(resources[kind]);
  for (const kind of SYNC_KINDS) visitKind(kind);
}
