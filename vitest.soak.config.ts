import { defineConfig } from 'vitest/config';

/**
 * `npm run soak`: the reliability proofs at soak scale (docs/reliability.md). The crash scenario
 * with 200 kills, a 30-second overload, ten times the property-based cases, and the hostile
 * clients of issue #16 at the strength the issue measured them.
 */
export default defineConfig({
  test: {
    include: [
      'test/reliability/soak/**/*.soak.ts',
      'test/reliability/overload.test.ts',
      'test/reliability/hostile-input.test.ts',
      'test/reliability/isolation.test.ts',
      'test/reliability/hostile-clients.test.ts',
    ],
    env: { RELIABILITY_FUZZ_SCALE: '10', RELIABILITY_OVERLOAD_MS: '30000', RELIABILITY_HOSTILE_STRENGTH: 'full' },
    testTimeout: 60 * 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
