import { describe, expect, it } from 'vitest';
import { ProgressBar } from '../../src/cli/progress-bar.js';

function output(isTTY: boolean): { isTTY: boolean; written: string[]; write(text: string): void } {
  const written: string[] = [];
  return { isTTY, written, write: (text) => written.push(text) };
}

describe('the progress bar', () => {
  it('is drawn in place on a terminal, once per percent, and ends its line', () => {
    const terminal = output(true);
    const bar = new ProgressBar('backup', terminal);
    for (let done = 0; done <= 1000; done += 1) bar.update(done, 1000);
    bar.finish();
    expect(terminal.written).toHaveLength(102);
    expect(terminal.written[0]).toBe(`\rbackup [${' '.repeat(30)}] 0%`);
    expect(terminal.written[100]).toBe(`\rbackup [${'#'.repeat(30)}] 100%`);
    expect(terminal.written[101]).toBe('\n');
  });

  it('writes nothing at all when the output is not a terminal (a log, a pipe)', () => {
    const pipe = output(false);
    const bar = new ProgressBar('import', pipe);
    bar.update(5, 10);
    bar.finish();
    expect(pipe.written).toEqual([]);
  });
});
