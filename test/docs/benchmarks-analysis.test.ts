/**
 * docs/benchmarks.md is written by `npm run bench`, which carries tools/bench/analysis.md into it
 * as it is: an analysis written into the report alone would be lost at the next run.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MEASURED_HEADING } from '../../tools/bench/report.js';
import { REPO_ROOT } from '../e2e/support/processes.js';

describe('the benchmarks report', () => {
  it('holds tools/bench/analysis.md as it is, right before how it was measured', () => {
    const report = readFileSync(path.join(REPO_ROOT, 'docs', 'benchmarks.md'), 'utf8');
    const analysis = readFileSync(path.join(REPO_ROOT, 'tools', 'bench', 'analysis.md'), 'utf8');
    expect(report).toContain(`\n${analysis.trim()}\n\n${MEASURED_HEADING}\n`);
  });
});
