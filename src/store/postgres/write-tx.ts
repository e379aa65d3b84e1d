import type pg from 'pg';
import { invalid } from '../../domain/errors.js';
import type { Context, ContextDraft, LabelKind, Project, ProjectDraft } from '../../domain/label.js';
import type { Task, TaskDraft } from '../../domain/task.js';
import { microsFromMillis, nextUpdated, type Micros } from '../../domain/time.js';
import type { RecordsByKind, StoredAnswer, SyncKind, WriteTx } from '../store.js';
import { isUniqueViolation } from './errors.js';
import { contextFromRow, projectFromRow, taskFromRow, type ContextRow, type ProjectRow, type TaskRow } from './rows.js';
import { KIND_TABLES } from './tables.js';
import {
  UPSERT_CONTEXT,
  UPSERT_PROJECT,
  UPSERT_TASK,
  contextValues,
  projectValues,
  taskValues,
} from './upserts.js';

/** The account's change counters: the last `rev` handed out and the `updated` stamp it got. */
export interface AccountHead {
  readonly rev: number;
  readonly lastUpdated: Micros;
}

interface Stamp {
  readonly rev: number;
  readonly updated: Micros;
}

/** Which unique index guards live names of each label kind (see migrations.ts). */
const LIVE_NAME_INDEX: Readonly<Record<LabelKind, string>> = {
  project: 'projects_live_name',
  context: 'contexts_live_name',
};

/**
 * The puts and reads of one `Store.write`, on a connection whose transaction holds the account
 * row's lock. Change numbers are counted here and written back to the account row by the caller
 * before COMMIT, so the next writer (who waits for the lock) continues where this one ended.
 */
export class PostgresWriteTx implements WriteTx {
  private rev: number;
  private lastUpdated: Micros;
  private finished = false;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly accountId: number,
    start: AccountHead,
  ) {
    this.rev = start.rev;
    this.lastUpdated = start.lastUpdated;
  }

  /** The counters after the puts so far; what the account row must hold when this commits. */
  get head(): AccountHead {
    return { rev: this.rev, lastUpdated: this.lastUpdated };
  }

  /** Called when the transaction ends: a put after that would escape it. */
  finish(): void {
    this.finished = true;
  }

  private assertOpen(): void {
    if (this.finished) throw new Error('write transaction used after it ended');
  }

  /**
   * The next change number and `updated` stamp. Taken synchronously, before any await, so puts
   * the caller runs concurrently still get distinct, ordered stamps.
   */
  private nextStamp(): Stamp {
    this.assertOpen();
    this.rev += 1;
    this.lastUpdated = nextUpdated(this.lastUpdated, microsFromMillis(Date.now()));
    return { rev: this.rev, updated: this.lastUpdated };
  }

  /** The record of this account matching `condition`, whose `$2`, `$3`... are `params`. */
  private async first<K extends SyncKind>(
    kind: K,
    condition: string,
    ...params: unknown[]
  ): Promise<RecordsByKind[K] | undefined> {
    this.assertOpen();
    const [record] = await KIND_TABLES[kind].select(this.client, `account_id = $1 AND ${condition}`, [
      this.accountId,
      ...params,
    ]);
    return record;
  }

  getTask(id: string): Promise<Task | undefined> {
    return this.first('task', 'id = $2', id);
  }

  getProject(id: string): Promise<Project | undefined> {
    return this.first('project', 'id = $2', id);
  }

  getContext(id: string): Promise<Context | undefined> {
    return this.first('context', 'id = $2', id);
  }

  /** Live (not deleted) records only: names are unique among those. */
  findProjectByName(name: string): Promise<Project | undefined> {
    return this.first('project', 'name = $2 AND deleted IS NULL', name);
  }

  findContextByName(name: string): Promise<Context | undefined> {
    return this.first('context', 'name = $2 AND deleted IS NULL', name);
  }

  tasksWithLabel(kind: LabelKind, id: string): Promise<readonly Task[]> {
    this.assertOpen();
    const column = kind === 'project' ? 'project_id' : 'context_id';
    return KIND_TABLES.task.select(this.client, `account_id = $1 AND ${column} = $2 AND deleted IS NULL ORDER BY rev`, [
      this.accountId,
      id,
    ]);
  }

  async findAnswer(key: string): Promise<StoredAnswer | undefined> {
    this.assertOpen();
    const result = await this.client.query<{ request_hash: string; answer: string; created: string }>(
      'SELECT request_hash, answer, created FROM idempotency_answers WHERE account_id = $1 AND key = $2',
      [this.accountId, key],
    );
    const [row] = result.rows;
    return row === undefined ? undefined : { requestHash: row.request_hash, answer: row.answer, created: Number(row.created) };
  }

  async saveAnswer(key: string, requestHash: string, answer: string): Promise<void> {
    this.assertOpen();
    await this.client.query(
      `INSERT INTO idempotency_answers (account_id, key, request_hash, answer, created) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (account_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, answer = EXCLUDED.answer,
         created = EXCLUDED.created`,
      [this.accountId, key, requestHash, answer, microsFromMillis(Date.now())],
    );
  }

  async putTask(draft: TaskDraft): Promise<Task> {
    const params = taskValues(this.accountId, draft);
    const stamp = this.nextStamp();
    const result = await this.client.query<TaskRow>(UPSERT_TASK, [...params, stamp.updated, stamp.rev]);
    return taskFromRow(onlyRow(result.rows));
  }

  async putProject(draft: ProjectDraft): Promise<Project> {
    const params = projectValues(this.accountId, draft);
    const stamp = this.nextStamp();
    const result = await this.upsertLabel<ProjectRow>('project', UPSERT_PROJECT, [...params, stamp.updated, stamp.rev]);
    return projectFromRow(onlyRow(result.rows));
  }

  async putContext(draft: ContextDraft): Promise<Context> {
    const params = contextValues(this.accountId, draft);
    const stamp = this.nextStamp();
    const result = await this.upsertLabel<ContextRow>('context', UPSERT_CONTEXT, [...params, stamp.updated, stamp.rev]);
    return contextFromRow(onlyRow(result.rows));
  }

  /**
   * The service checks name clashes itself (writes of one account never race, they hold its
   * lock), so the unique index firing is a last line of defence; it is reported like the
   * service would report it.
   */
  private async upsertLabel<Row extends pg.QueryResultRow>(
    kind: LabelKind,
    sql: string,
    params: unknown[],
  ): Promise<pg.QueryResult<Row>> {
    try {
      return await this.client.query<Row>(sql, params);
    } catch (error) {
      if (isUniqueViolation(error, LIVE_NAME_INDEX[kind])) throw invalid('name', 'already used');
      throw error;
    }
  }
}

function onlyRow<Row>(rows: readonly Row[]): Row {
  const [row] = rows;
  if (row === undefined) throw new Error('upsert returned no row');
  return row;
}
