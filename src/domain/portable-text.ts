import { LABEL_NAME_MAX } from './label.js';
import type { PortableAccount, PortableTask } from './portable.js';
import { TASK_LIMITS, type LabelRef } from './task.js';

/** A UTF-16 surrogate not in a pair, which each engine would store differently. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * A text of a file that the API's writes would refuse: the API checks its texts as it reads a
 * request body, and an import reads files instead, so the same limits are held here.
 */
export interface PortableTextProblem {
  readonly what: 'project' | 'context' | 'task';
  /** Its place among the file's records of its kind, from 1. */
  readonly position: number;
  readonly id: string;
  readonly field: string;
  readonly reason: string;
}

/** A field's name, its text (null: none) and its most characters (UTF-16 units, as the API counts). */
type TextField = readonly [field: string, text: string | null, max: number];

function reasonAgainst(text: string, max: number): string | undefined {
  if (text.length > max) return `at most ${max} characters`;
  if (text.includes('\0')) return 'must not contain U+0000';
  if (LONE_SURROGATE.test(text)) return 'must not contain a lone surrogate';
  return undefined;
}

function nameOf(ref: LabelRef): string | null {
  return ref !== null && 'name' in ref ? ref.name : null;
}

function taskFields(task: PortableTask): TextField[] {
  return [
    ['title', task.title, TASK_LIMITS.titleMax],
    ['notes', task.notes, TASK_LIMITS.notesMax],
    ['project', nameOf(task.project), LABEL_NAME_MAX],
    ['context', nameOf(task.context), LABEL_NAME_MAX],
    // Its length is the rule parser's to judge.
    ['repeater', task.repeater, Number.POSITIVE_INFINITY],
    ...task.tags.map((tag, index): TextField => [`tags[${index}]`, tag, TASK_LIMITS.tagMax]),
  ];
}

function firstIn<T extends { readonly id: string }>(
  what: PortableTextProblem['what'],
  records: readonly T[],
  fieldsOf: (record: T) => readonly TextField[],
): PortableTextProblem | undefined {
  for (const [index, record] of records.entries()) {
    const place = { what, position: index + 1, id: record.id };
    for (const [field, text, max] of fieldsOf(record)) {
      const reason = text === null ? undefined : reasonAgainst(text, max);
      if (reason !== undefined) return { ...place, field, reason };
    }
  }
  return undefined;
}

/** The first text of the file the API would refuse, or undefined when every one would do. */
export function firstTextProblem(data: PortableAccount): PortableTextProblem | undefined {
  const tooManyTags = data.tasks.findIndex((task) => task.tags.length > TASK_LIMITS.tagsMax);
  const tagged = data.tasks[tooManyTags];
  const tagProblem: PortableTextProblem | undefined =
    tagged === undefined
      ? undefined
      : {
          what: 'task',
          position: tooManyTags + 1,
          id: tagged.id,
          field: 'tags',
          reason: `at most ${TASK_LIMITS.tagsMax} tags`,
        };
  return (
    firstIn('project', data.projects, (project) => [
      ['name', project.name, LABEL_NAME_MAX],
      ['notes', project.notes, TASK_LIMITS.notesMax],
    ]) ??
    firstIn('context', data.contexts, (context) => [['name', context.name, LABEL_NAME_MAX]]) ??
    tagProblem ??
    firstIn('task', data.tasks, taskFields)
  );
}
