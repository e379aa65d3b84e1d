import { expect } from 'vitest';
import type { CliResult } from './processes.js';

/** A frame of a stack trace as Node prints it: `    at fn (file.js:10:5)`. */
export const STACK_FRAME = /^\s+at .+:\d+:\d+\)?$/m;

/**
 * A failure as an operator should meet it: a non-zero exit, nothing on standard output, and one
 * line on standard error matching `pattern`, with no stack trace.
 */
export function expectOneLine(result: CliResult, pattern: RegExp, code = 1): string {
  expect(result.code, result.stderr).toBe(code);
  const lines = result.stderr.split('\n').filter((line) => line !== '');
  expect(lines, result.stderr).toHaveLength(1);
  const [line = ''] = lines;
  expect(line).toMatch(/^task-service: /);
  expect(line).toMatch(pattern);
  expect(result.stderr).not.toMatch(STACK_FRAME);
  return line;
}
