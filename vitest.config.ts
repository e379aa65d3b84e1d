import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most files wait on real processes, sockets and a browser more than they compute: two at once
    // halve the suite on this 2-core machine (891 s → 473 s, all green, in one run each).
    maxWorkers: 2,
  },
});
