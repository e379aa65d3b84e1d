import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { parseCommand } from '../../src/config/parse.js';
import { DEFAULT_STORAGE_QUOTA } from '../../src/domain/storage-quota.js';

describe('serve --max-records', () => {
  const maxRecordsOf = (argv: readonly string[], env: Record<string, string> = {}): number => {
    const command = parseCommand(argv, env);
    if (command.command !== 'serve') throw new Error(`parsed as ${command.command}`);
    return command.maxRecords;
  };

  it("is issue #16's cap unless the operator sets another, by flag or environment (the flag wins)", () => {
    expect(maxRecordsOf(['serve'])).toBe(DEFAULT_STORAGE_QUOTA.maxRecords);
    expect(maxRecordsOf(['serve', '--max-records', '250000'])).toBe(250_000);
    expect(maxRecordsOf(['serve'], { TASK_SERVICE_MAX_RECORDS: '5000' })).toBe(5000);
    expect(maxRecordsOf(['serve', '--max-records', '7'], { TASK_SERVICE_MAX_RECORDS: '5000' })).toBe(7);
  });

  it('refuses what is not a whole number of at least one, naming the flag', () => {
    for (const bad of ['0', '-3', '1.5', 'lots', '']) {
      expect(() => parseCommand(['serve', '--max-records', bad], {})).toThrow(ConfigError);
      expect(() => parseCommand(['serve', '--max-records', bad], {})).toThrow(/--max-records/);
    }
  });
});
