import { describe, expect, it } from 'vitest';
import { TASK_LIMITS } from '../../src/domain/task.js';
import { newRecordId } from '../../src/service/ids.js';

describe('server-made record ids', () => {
  it('are 22 characters of the id alphabet, and never repeat across many pool refills', () => {
    const seen = new Set<string>();
    for (let count = 0; count < 20_000; count += 1) {
      const id = newRecordId();
      expect(id).toMatch(TASK_LIMITS.idPattern);
      expect(id).toHaveLength(22);
      seen.add(id);
    }
    expect(seen.size).toBe(20_000);
  });
});
