/**
 * docs/benchmarks.md is written by `npm run bench`, which carries tools/bench/analysis.md into it
 * as it is: an analysis written into the report alone would be lost at the next run.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../e2e/support/processes.js';

const BEFORE = '## Why, goal by goal';
const AFTER = '\n## How it was measured';

describe('the benchmarks report', () => {
  it('holds tools/bench/analysis.md as it is, between the goals and how it was measured', () => {
    const report = readFileSync(path.join(REPO_ROOT, 'docs', 'benchmarks.md'), 'utf8');
    const analysis = readFileSync(path.join(REPO_ROOT, 'tools', 'bench', 'analysis.md'), 'utf8');
    expect(analysis.startsWith(BEFORE)).toBe(true);
    const start = report.indexOf(BEFORE);
    const end = report.indexOf(AFTER, start);
    expect(start).toBeGreaterThan(-1);
    expect(end).toBeGreaterThan(start);
    expect(report.slice(start, end).trim()).toBe(analysis.trim());
  });
});
