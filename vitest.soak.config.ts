import { defineConfig } from 'vitest/config';

/**
 * `npm run soak`: the reliability proofs at soak scale (docs/reliability.md). The crash scenario
 * with 200 kills, a 30-second overload, and ten times the property-based cases.
 */
export default defineConfig({
  test: {
    include: [
      'test/reliability/soak/**/*.soak.ts',
      'test/reliability/overload.test.ts',
      'test/reliability/hostile-input.test.ts',
      'test/reliability/isolation.test.ts',
    ],
    env: { RELIABILITY_FUZZ_SCALE: '10', RELIABILITY_OVERLOAD_MS: '30000' },
    testTimeout: 60 * 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
