/**
 * Crash safety of the embedded store (issue #6, 1): SIGKILL at random moments under concurrent
 * writers; every answered write survives with its answered content, the file passes
 * `PRAGMA integrity_check`, and sync cursors issued before a kill continue exactly after it.
 * `npm run soak` runs the same scenario with ten times the kills.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses } from '../e2e/support/processes.js';
import { runCrashCycles } from './support/crash.js';
import { reportFigures } from './support/figures.js';
import { runSeed } from './support/random.js';

const KILLS = 20;

describe('crash safety: serve --http on SQLite, killed with SIGKILL under load', () => {
  afterAll(async () => {
    await cleanUpProcesses();
  });

  it(
    `keeps every answered write, an intact file and continuing cursors across ${KILLS} kills`,
    { timeout: 150_000 },
    async () => {
      const seed = runSeed();
      const figures = await runCrashCycles({ kills: KILLS, seed });
      const { anomalies, ...counts } = figures;
      reportFigures('crash safety', { seed, ...counts, anomalies: anomalies.length });
      expect(anomalies.slice(0, 20), `seed ${seed}`).toEqual([]);
      expect(figures.kills).toBe(KILLS);
      expect(figures.integrityChecks).toBe(KILLS);
      expect(figures.writesChecked).toBe(figures.answeredWrites);
      // The kills must land on real work, not on idle processes.
      expect(figures.answeredWrites).toBeGreaterThan(KILLS * 20);
      expect(figures.unknownOutcomes).toBeGreaterThan(0);
    },
  );
});
