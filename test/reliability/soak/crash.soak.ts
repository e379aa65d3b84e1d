/** `npm run soak`: the crash-safety scenario of crash-safety.test.ts with 200 kills. */
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses } from '../../e2e/support/processes.js';
import { runCrashCycles } from '../support/crash.js';
import { reportFigures } from '../support/figures.js';
import { runSeed } from '../support/random.js';

const KILLS = Number(process.env['RELIABILITY_SOAK_KILLS'] ?? 200);

describe('soak: crash safety', () => {
  afterAll(async () => {
    await cleanUpProcesses();
  });

  it(
    `survives ${KILLS} kills with every answered write, an intact file and continuing cursors`,
    { timeout: 60 * 60_000 },
    async () => {
      const seed = runSeed();
      const figures = await runCrashCycles({ kills: KILLS, seed, taskCap: 3000 });
      const { anomalies, ...counts } = figures;
      reportFigures('soak crash safety', { seed, ...counts, anomalies: anomalies.length });
      expect(anomalies.slice(0, 20), `seed ${seed}`).toEqual([]);
      expect(figures.kills).toBe(KILLS);
      expect(figures.writesChecked).toBe(figures.answeredWrites);
    },
  );
});
