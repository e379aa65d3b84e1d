/** What the terminal client prints for people. */
import { calendarDateIn } from '../../client/index.js';
import type { KeptTask } from './local-copy.js';

// Matching control characters is the point of this pattern.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * Text from the service shown as text: control characters (which could move the cursor or
 * recolour the terminal) are written as visible escapes.
 */
export function plain(text: string): string {
  return text.replace(CONTROL_CHARACTERS, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const PRIORITY_MARKS = ['', '!1', '!2', '!3'];

/** One line per task: id, title, then what is set, in the quick-add notation. */
export function taskLine(task: KeptTask, zone: string): string {
  const details: string[] = [];
  if (task.project !== null) details.push(`#${task.project}`);
  // Quick add keeps a context's `@`; one named by another client gets it here.
  if (task.context !== null) details.push(task.context.startsWith('@') ? task.context : `@${task.context}`);
  for (const tag of task.tags) details.push(`*${tag}`);
  if (task.priority > 0) details.push(PRIORITY_MARKS[task.priority] ?? '');
  if (task.start_at !== null) details.push(`^${calendarDateIn(task.start_at, zone)}`);
  if (task.end_at !== null) details.push(`due ${calendarDateIn(task.end_at, zone)}`);
  if (task.repeater !== null) details.push('(repeats)');
  if (task.completed !== null) details.push(`done ${calendarDateIn(task.completed, zone)}`);
  return plain([task.id, task.title, ...details].join('  '));
}
