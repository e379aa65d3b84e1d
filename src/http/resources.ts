import type { Account } from '../domain/account.js';
import type { LabelInput } from '../domain/label.js';
import type { RecordsByKind, SyncKind, WriteOutcome } from '../domain/sync.js';
import type { TaskInput } from '../domain/task.js';
import type { WriteRequest } from '../service/idempotency.js';
import type { Services } from '../service/services.js';
import { readContextBody, readProjectBody } from './schemas/label.js';
import { readTaskBody } from './schemas/task.js';
import { renderContext, renderProject, renderTask } from './wire/render.js';

/** What a POST body of each kind is parsed into. */
interface InputsByKind {
  readonly task: TaskInput;
  readonly project: LabelInput;
  readonly context: LabelInput;
}

/** One synced resource (`/v1/tasks`, …): its path, how a body is read, how records are shown, its use case. */
export interface RecordResource<K extends SyncKind> {
  readonly path: string;
  readonly kind: K;
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
    render: renderTask,
    readBody: readTaskBody,
    upsert: (services, account, inputs, request) => services.tasks.upsert(account, inputs, request),
  },
  project: {
    path: 'projects',
    kind: 'project',
    render: renderProject,
    readBody: readProjectBody,
    upsert: (services, account, inputs, request) => services.labels.upsert(account, 'project', inputs, request),
  },
  context: {
    path: 'contexts',
    kind: 'context',
    render: renderContext,
    readBody: readContextBody,
    upsert: (services, account, inputs, request) => services.labels.upsert(account, 'context', inputs, request),
  },
};

/** Hands each resource of the table to `visit`, typed by its own kind; a kind missing here does not compile. */
export function eachResource(
  resources: typeof RECORD_RESOURCES,
  visit: <K extends SyncKind>(resource: RecordResource<K>) => void,
): void {
  const visits: { readonly [K in SyncKind]: () => void } = {
    task: () => visit(resources.task),
    project: () => visit(resources.project),
    context: () => visit(resources.context),
  };
  for (const register of Object.values(visits)) register();
}
