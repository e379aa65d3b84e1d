import type { Context, ContextDraft, LabelKind, Project, ProjectDraft } from '../../domain/label.js';
import type { Task, TaskDraft } from '../../domain/task.js';
import { nextUpdated } from '../../domain/time.js';
import type { StoredAnswer, WriteTx } from '../store.js';
import type { AccountHeadRow } from './account-rows.js';
import type { AnswerWrites } from './answers.js';
import { nowMicros } from './clock.js';
import type { RecordWrites } from './record-writes.js';
import type { Stamp } from './rows.js';

/**
 * One write transaction of one account on the write connection. It reads the account's change
 * number and last stamp once, at the start, and counts on from there; the store writes the final
 * values back to the account row just before COMMIT.
 */
export class SqliteWriteTx implements WriteTx {
  #open = true;
  #last: Stamp;
  #changed = false;

  constructor(
    private readonly records: RecordWrites,
    private readonly answers: AnswerWrites,
    private readonly accountId: number,
    head: AccountHeadRow,
  ) {
    this.#last = { rev: head.rev, updated: head.last_updated };
  }

  async getTask(id: string): Promise<Task | undefined> {
    this.#assertOpen();
    return this.records.getters.task.get(this.accountId, id);
  }

  async putTask(draft: TaskDraft): Promise<Task> {
    return this.#put((stamp) => this.records.putTask(this.accountId, draft, stamp));
  }

  async getProject(id: string): Promise<Project | undefined> {
    this.#assertOpen();
    return this.records.getters.project.get(this.accountId, id);
  }

  async findProjectByName(name: string): Promise<Project | undefined> {
    this.#assertOpen();
    return this.records.liveProjectByName(this.accountId, name);
  }

  async putProject(draft: ProjectDraft): Promise<Project> {
    return this.#put((stamp) => this.records.putProject(this.accountId, draft, stamp));
  }

  async getContext(id: string): Promise<Context | undefined> {
    this.#assertOpen();
    return this.records.getters.context.get(this.accountId, id);
  }

  async findContextByName(name: string): Promise<Context | undefined> {
    this.#assertOpen();
    return this.records.liveContextByName(this.accountId, name);
  }

  async putContext(draft: ContextDraft): Promise<Context> {
    return this.#put((stamp) => this.records.putContext(this.accountId, draft, stamp));
  }

  async tasksWithLabel(kind: LabelKind, id: string): Promise<readonly Task[]> {
    this.#assertOpen();
    return this.records.liveTasksWithLabel(this.accountId, kind, id);
  }

  async findAnswer(key: string): Promise<StoredAnswer | undefined> {
    this.#assertOpen();
    return this.answers.find(this.accountId, key);
  }

  /** Not a change of the account's data: takes no rev. */
  async saveAnswer(key: string, requestHash: string, answer: string): Promise<void> {
    this.#assertOpen();
    this.answers.save(this.accountId, key, requestHash, answer, nowMicros());
  }

  /**
   * Ends the use of this object (a put after the transaction ended would land outside it) and
   * answers the account's new head, or null when nothing was written.
   */
  end(): Stamp | null {
    this.#open = false;
    return this.#changed ? this.#last : null;
  }

  /** Stamps one record with the account's next rev and updated; a failed write takes neither. */
  #put<R>(write: (stamp: Stamp) => R): R {
    this.#assertOpen();
    const stamp = { rev: this.#last.rev + 1, updated: nextUpdated(this.#last.updated, nowMicros()) };
    const record = write(stamp);
    this.#last = stamp;
    this.#changed = true;
    return record;
  }

  #assertOpen(): void {
    if (!this.#open) throw new Error('the write transaction has ended');
  }
}
