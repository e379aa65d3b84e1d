import os from 'node:os';

/**
 * How much slower than an idle machine this one runs now: the runnable processes of the last
 * minute per core (at least 1). A time limit of an idle machine is stretched by it, so that other
 * work on a shared machine (other test files, another `npm test`) is not read as the service's
 * fault; on an idle machine the limit stays as written. Read before the test makes its own load.
 */
export function busyFactor(): number {
  const [lastMinute = 0] = os.loadavg();
  return Math.max(1, lastMinute / os.availableParallelism());
}
