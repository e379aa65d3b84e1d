import type { Account, SettingsPatch } from '../domain/account.js';
import { DomainError } from '../domain/errors.js';
import type { LabelInput } from '../domain/label.js';
import {
  portableOf,
  IMPORT_PREVIEW_SIZE,
  type PortableAccount,
  type PortableContext,
  type PortableProject,
  type PortableSettings,
  type PortableTask,
} from '../domain/portable.js';
import { firstTextProblem } from '../domain/portable-text.js';
import type { StorageQuota } from '../domain/storage-quota.js';
import type { RecordsByKind, SyncKind } from '../domain/sync.js';
import type { TaskInput } from '../domain/task.js';
import type { Clock } from '../domain/time.js';
import type { Store, WriteTx } from '../store/store.js';
import { AdminError } from './accounts.js';
import { importLabels, importLabelsByName } from './labels.js';
import { SettingsService } from './settings.js';
import { withinQuota } from './storage-quota.js';
import { importTasks, type ImportChange } from './tasks.js';

/** An import the file's own records make impossible (nothing is imported): not the operator's mistake. */
export class ImportRefusedError extends AdminError {
  override name = 'ImportRefusedError';
}

/** Records per transaction of an import: each commits on its own, none holds the account long. */
export const IMPORT_BATCH_SIZE = 500;

export interface ChangeCounts {
  created: number;
  updated: number;
  unchanged: number;
}

type ImportedKind = 'project' | 'context' | 'task';

/** One record an import creates or updates (or would), named as a person knows it. */
export interface ImportedRecord {
  readonly kind: ImportedKind;
  /** A task's title, a project's or context's name. */
  readonly name: string;
  readonly change: 'created' | 'updated';
}

export interface ImportReport {
  readonly dryRun: boolean;
  readonly settingsChanged: boolean;
  readonly projects: ChangeCounts;
  readonly contexts: ChangeCounts;
  readonly tasks: ChangeCounts;
  /** The first IMPORT_PREVIEW_SIZE records created or updated, in the file's order, kind by kind. */
  readonly changed: readonly ImportedRecord[];
  readonly unmapped: readonly string[];
}

export interface ImportOptions {
  /** Work out what would change, in one transaction that is then rolled back. */
  readonly dryRun: boolean;
  /** Told after each batch: records done, of how many. */
  readonly onProgress?: (done: number, total: number) => void;
}

/** A dry run's work, thrown to roll its transaction back with every step's changes in hand. */
class DryRunFinished extends Error {
  constructor(readonly changes: readonly StepChanges[]) {
    super('dry run finished');
  }
}

function counts(): ChangeCounts {
  return { created: 0, updated: 0, unchanged: 0 };
}

interface ReportInProgress {
  readonly projects: ChangeCounts;
  readonly contexts: ChangeCounts;
  readonly tasks: ChangeCounts;
  readonly changed: ImportedRecord[];
}

const COUNTS_OF = { project: 'projects', context: 'contexts', task: 'tasks' } as const;

/** What one batch did to each of its records, named as the preview shows them. */
interface StepChanges {
  readonly kind: ImportedKind;
  readonly names: readonly string[];
  readonly changes: readonly ImportChange[];
}

/**
 * Counts a batch's changes, and names the changed records while the preview has room. Done once
 * the batch's write is over: the store may run a write's work more than once.
 */
function tally(report: ReportInProgress, { kind, names, changes }: StepChanges): void {
  const counts = report[COUNTS_OF[kind]];
  changes.forEach((change, index) => {
    counts[change] += 1;
    if (change === 'unchanged' || report.changed.length >= IMPORT_PREVIEW_SIZE) return;
    report.changed.push({ kind, name: names[index] ?? '', change });
  });
}

function batches<T>(items: readonly T[]): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += IMPORT_BATCH_SIZE) {
    result.push(items.slice(start, start + IMPORT_BATCH_SIZE));
  }
  return result;
}

function projectInput(project: PortableProject): LabelInput {
  return { id: project.id, name: project.name, notes: project.notes, archived: project.archived, deleted: null };
}

function contextInput(context: PortableContext): LabelInput {
  return { id: context.id, name: context.name, deleted: null };
}

function taskInput(task: PortableTask): TaskInput {
  return { ...task, deleted: null };
}

/**
 * The tasks with each parent before its subtasks (a subtask's parent must exist when it is
 * written), else in the file's order.
 */
function parentsFirst(tasks: readonly PortableTask[]): PortableTask[] {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const placed = new Set<string>();
  const ordered: PortableTask[] = [];
  const place = (task: PortableTask, path: ReadonlySet<string>): void => {
    if (placed.has(task.id) || path.has(task.id)) return;
    const parent = task.parentId === null ? undefined : byId.get(task.parentId);
    if (parent !== undefined) place(parent, new Set([...path, task.id]));
    placed.add(task.id);
    ordered.push(task);
  };
  for (const task of tasks) place(task, new Set());
  return ordered;
}

/** Each project or context name the tasks give by name alone, once, in the file's order. */
function namedBy(
  tasks: readonly PortableTask[],
  kind: 'project' | 'context',
): { readonly id: string; readonly name: string }[] {
  const found = new Set<string>();
  for (const task of tasks) {
    const ref = task[kind];
    if (ref !== null && 'name' in ref && !('id' in ref) && ref.name !== '') found.add(ref.name);
  }
  return [...found].map((name) => ({ id: name, name }));
}

/** The settings that differ from the account's, or null when none does. */
function settingsPatch(account: Account, settings: PortableSettings | undefined): SettingsPatch | null {
  if (settings === undefined) return null;
  const patch: { -readonly [K in keyof SettingsPatch]: SettingsPatch[K] } = {};
  if (settings.nickname !== undefined && settings.nickname !== account.nickname) patch.nickname = settings.nickname;
  if (settings.timezone !== undefined && settings.timezone !== account.timezone) patch.timezone = settings.timezone;
  if (settings.language !== undefined && settings.language !== account.language) patch.language = settings.language;
  if (settings.weekStart !== undefined && settings.weekStart !== account.weekStart)
    patch.weekStart = settings.weekStart;
  return Object.keys(patch).length === 0 ? null : patch;
}

/** One step of an import: a batch of one kind, applied in a transaction given to it. */
interface ImportStep {
  readonly what: ImportedKind;
  /** Where the batch starts among the file's records of its kind. */
  readonly offset: number;
  readonly ids: readonly string[];
  apply(tx: WriteTx, zone: string): Promise<StepChanges>;
}

/** The steps of one kind: its records in batches, each applied by `apply`. */
function stepsOf<T extends { readonly id: string }>(
  what: ImportStep['what'],
  records: readonly T[],
  apply: (tx: WriteTx, zone: string, batch: readonly T[]) => Promise<StepChanges>,
): ImportStep[] {
  return batches(records).map((batch, index) => ({
    what,
    offset: index * IMPORT_BATCH_SIZE,
    ids: batch.map((record) => record.id),
    apply: (tx, zone) => apply(tx, zone, batch),
  }));
}

/**
 * Export and import of one account's data, per account, for the command line and the web app's
 * Settings: the live records (tombstones left out) out, and records in through the same rules as
 * the API's writes.
 */
export class PortabilityService {
  private readonly settings: SettingsService;

  /**
   * With a quota (the web app's imports, made by the account's owner), a batch that takes the
   * account past it is refused as the API's writes are; the command line is the operator's, and
   * imports whatever the file holds.
   */
  constructor(
    private readonly store: Store,
    private readonly now: Clock,
    private readonly quota?: StorageQuota,
  ) {
    this.settings = new SettingsService(store);
  }

  private async account(username: string): Promise<Account> {
    const account = await this.store.findAccount(username);
    if (account === undefined) throw new AdminError(`no user named ${username}`);
    return account;
  }

  /** The account's time zone, in which a file's dates without a zone are read. */
  async zoneOf(username: string): Promise<string> {
    return (await this.account(username)).timezone;
  }

  /** Every live record of the account, and its settings. */
  async exportAccount(username: string): Promise<{ account: Account; data: PortableAccount }> {
    const account = await this.account(username);
    const projects = await this.live(account.id, 'project');
    const contexts = await this.live(account.id, 'context');
    const tasks = await this.live(account.id, 'task');
    return {
      account,
      data: {
        settings: {
          nickname: account.nickname,
          timezone: account.timezone,
          language: account.language,
          weekStart: account.weekStart,
        },
        projects: projects.map((project) => ({
          id: project.id,
          name: project.name,
          notes: project.notes,
          archived: project.archived,
        })),
        contexts: contexts.map((context) => ({ id: context.id, name: context.name })),
        tasks: tasks.map(portableOf),
        unmapped: [],
      },
    };
  }

  private async live<K extends SyncKind>(accountId: number, kind: K): Promise<RecordsByKind[K][]> {
    const snapshot = await this.store.list(accountId, kind, { includeDeleted: false });
    const records: RecordsByKind[K][] = [];
    try {
      for (let batch = await snapshot.nextBatch(); batch !== null; batch = await snapshot.nextBatch()) {
        records.push(...batch);
      }
    } finally {
      await snapshot.close();
    }
    return records;
  }

  /**
   * Sets the account's records to the file's: settings first, then projects, contexts and tasks,
   * in transactions of at most IMPORT_BATCH_SIZE records, once every text of the file is one the
   * API would take (none is written otherwise). Records that would not change are not
   * written, so an import run twice changes nothing the second time. A dry run does all of it in
   * one transaction and rolls it back.
   */
  async importAccount(username: string, data: PortableAccount, options: ImportOptions): Promise<ImportReport> {
    let account = await this.account(username);
    const problem = firstTextProblem(data);
    if (problem !== undefined) {
      throw new ImportRefusedError(
        `the import was refused at ${problem.what} ${problem.position} of the file (id ${problem.id}), ` +
          `${problem.field}: ${problem.reason}`,
      );
    }
    const patch = settingsPatch(account, data.settings);
    if (patch !== null && !options.dryRun) account = await this.settings.update(account.id, patch);
    const zone = patch?.timezone ?? account.timezone;

    const report: ImportReport & ReportInProgress = {
      dryRun: options.dryRun,
      settingsChanged: patch !== null,
      projects: counts(),
      contexts: counts(),
      tasks: counts(),
      changed: [],
      unmapped: data.unmapped,
    };
    const names = (batch: readonly { readonly name: string }[]): string[] => batch.map((label) => label.name);
    const steps: ImportStep[] = [
      ...stepsOf('project', data.projects, async (tx, _zone, batch) => ({
        kind: 'project',
        names: names(batch),
        changes: await importLabels(tx, 'project', batch.map(projectInput)),
      })),
      ...stepsOf('context', data.contexts, async (tx, _zone, batch) => ({
        kind: 'context',
        names: names(batch),
        changes: await importLabels(tx, 'context', batch.map(contextInput)),
      })),
      // The labels tasks name by name (not among the file's own records): made here, and counted.
      ...stepsOf('project', namedBy(data.tasks, 'project'), async (tx, _zone, batch) => ({
        kind: 'project',
        names: names(batch),
        changes: await importLabelsByName(tx, 'project', names(batch)),
      })),
      ...stepsOf('context', namedBy(data.tasks, 'context'), async (tx, _zone, batch) => ({
        kind: 'context',
        names: names(batch),
        changes: await importLabelsByName(tx, 'context', names(batch)),
      })),
      ...stepsOf('task', parentsFirst(data.tasks), async (tx, taskZone, batch) => ({
        kind: 'task',
        names: batch.map((task) => task.title),
        changes: await importTasks(tx, taskZone, batch.map(taskInput), this.now()),
      })),
    ];
    const total = steps.reduce((sum, step) => sum + step.ids.length, 0);
    const run = async (tx: WriteTx, step: ImportStep): Promise<StepChanges> => {
      try {
        if (this.quota === undefined) return await step.apply(tx, zone);
        return await withinQuota(tx, this.quota, () => step.apply(tx, zone));
      } catch (error) {
        throw explained(error, step, options.dryRun);
      }
    };

    if (options.dryRun) {
      try {
        await this.store.write(account.id, async (tx) => {
          const changes: StepChanges[] = [];
          for (const step of steps) {
            changes.push(await run(tx, step));
            options.onProgress?.(
              changes.reduce((sum, done) => sum + done.changes.length, 0),
              total,
            );
          }
          throw new DryRunFinished(changes);
        });
      } catch (error) {
        if (!(error instanceof DryRunFinished)) throw error;
        for (const changes of error.changes) tally(report, changes);
        return report;
      }
    }
    let done = 0;
    for (const step of steps) {
      tally(report, await this.store.write(account.id, (tx) => run(tx, step)));
      done += step.ids.length;
      options.onProgress?.(done, total);
    }
    return report;
  }
}

/**
 * A refused record, said as the operator can act on it: which record of the file (its place
 * among the records of its kind, and its id), which field, and why.
 */
function explained(error: unknown, step: ImportStep, dryRun: boolean): unknown {
  if (!(error instanceof DomainError)) return error;
  const problem = error.problem;
  const after = dryRun ? '' : ' (the batches before it were imported; fix the file and run it again)';
  if (problem.kind === 'storage_full') {
    const limit = problem.measure === 'records' ? `${problem.max} records` : `${problem.max} bytes of text`;
    return new ImportRefusedError(`the import was refused: the account would hold more than ${limit}${after}`);
  }
  if (problem.kind !== 'invalid') return new ImportRefusedError(`the import was refused: ${problem.kind}${after}`);
  const placed = /^\[(\d+)\]\.(.*)$/.exec(problem.field);
  const index = Number(placed?.[1] ?? 0);
  const field = placed?.[2] ?? problem.field;
  const reason = problem.reason === undefined ? '' : `: ${problem.reason}`;
  return new ImportRefusedError(
    `the import was refused at ${step.what} ${step.offset + index + 1} of the file ` +
      `(id ${step.ids[index] ?? '?'}), ${field}${reason}${after}`,
  );
}
