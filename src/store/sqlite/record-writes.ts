import type { Context, ContextDraft, LabelKind, Project, ProjectDraft } from '../../domain/label.js';
import type { Task, TaskDraft } from '../../domain/task.js';
import type { SqliteDatabase } from './connection.js';
import { prepareGetters, type RecordGetters } from './record-readers.js';
import { CONTEXTS, PROJECTS, TASKS, UPSERT_CONTEXT, UPSERT_PROJECT, UPSERT_TASK } from './record-tables.js';
import {
  contextParams,
  projectParams,
  taskParams,
  type ContextParams,
  type ContextTuple,
  type ProjectParams,
  type ProjectTuple,
  type Stamp,
  type TaskParams,
  type TaskTuple,
} from './rows.js';

/** The statements a write transaction runs on the write connection, prepared once. */
export class RecordWrites {
  readonly getters: RecordGetters;
  readonly #upsertTask;
  readonly #upsertProject;
  readonly #upsertContext;
  readonly #liveProjectByName;
  readonly #liveContextByName;
  readonly #liveTasksByLabel;

  constructor(db: SqliteDatabase) {
    this.getters = prepareGetters(db);
    this.#upsertTask = db.prepare<TaskParams, TaskTuple>(UPSERT_TASK).raw();
    this.#upsertProject = db.prepare<ProjectParams, ProjectTuple>(UPSERT_PROJECT).raw();
    this.#upsertContext = db.prepare<ContextParams, ContextTuple>(UPSERT_CONTEXT).raw();
    this.#liveProjectByName = db.prepare<[accountId: number, name: string], ProjectTuple>(
      `SELECT ${PROJECTS.columns} FROM projects WHERE account_id = ? AND name = ? AND deleted IS NULL`,
    ).raw();
    this.#liveContextByName = db.prepare<[accountId: number, name: string], ContextTuple>(
      `SELECT ${CONTEXTS.columns} FROM contexts WHERE account_id = ? AND name = ? AND deleted IS NULL`,
    ).raw();
    this.#liveTasksByLabel = {
      // INDEXED BY: left alone, the planner walks the whole account in rev order to spare a sort.
      project: db.prepare<[accountId: number, projectId: string], TaskTuple>(
        `SELECT ${TASKS.columns} FROM tasks INDEXED BY tasks_live_by_project
         WHERE account_id = ? AND project_id = ? AND deleted IS NULL ORDER BY rev`,
      ).raw(),
      context: db.prepare<[accountId: number, contextId: string], TaskTuple>(
        `SELECT ${TASKS.columns} FROM tasks INDEXED BY tasks_live_by_context
         WHERE account_id = ? AND context_id = ? AND deleted IS NULL ORDER BY rev`,
      ).raw(),
    };
  }

  putTask(accountId: number, draft: TaskDraft, stamp: Stamp): Task {
    return TASKS.fromRow(returned(this.#upsertTask.get(taskParams(accountId, draft, stamp))));
  }

  putProject(accountId: number, draft: ProjectDraft, stamp: Stamp): Project {
    return PROJECTS.fromRow(returned(this.#upsertProject.get(projectParams(accountId, draft, stamp))));
  }

  putContext(accountId: number, draft: ContextDraft, stamp: Stamp): Context {
    return CONTEXTS.fromRow(returned(this.#upsertContext.get(contextParams(accountId, draft, stamp))));
  }

  liveProjectByName(accountId: number, name: string): Project | undefined {
    const row = this.#liveProjectByName.get(accountId, name);
    return row === undefined ? undefined : PROJECTS.fromRow(row);
  }

  liveContextByName(accountId: number, name: string): Context | undefined {
    const row = this.#liveContextByName.get(accountId, name);
    return row === undefined ? undefined : CONTEXTS.fromRow(row);
  }

  liveTasksWithLabel(accountId: number, kind: LabelKind, labelId: string): Task[] {
    return this.#liveTasksByLabel[kind].all(accountId, labelId).map(TASKS.fromRow);
  }
}

/** An upsert with RETURNING always answers the row it wrote. */
function returned<Row>(row: Row | undefined): Row {
  if (row === undefined) throw new Error('an upsert returned no row');
  return row;
}
