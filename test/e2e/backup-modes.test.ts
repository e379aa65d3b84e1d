import { statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SQLITE_FILE_NAME } from '../../src/store/open.js';
import { newAccount, storeFlags } from './support/accounts.js';
import { cleanUpProcesses, E2E_TEST_TIMEOUT_MS, makeTempDir, runCli } from './support/processes.js';

/** The permission bits of a file. */
const modeOf = (file: string): number => statSync(file).mode & 0o777;

// Issue 21 item 6: a backup holds every account's data and password hashes; neither it nor the
// store a restore writes may be readable by other users of the machine (under the usual umask 022).
describe('backup and restore write files for their owner only', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  afterAll(cleanUpProcesses);

  it('writes the backup and the restored store 0600', async () => {
    const store = { dataDir: await makeTempDir('modes') };
    await newAccount(store, 'owner');
    const file = path.join(await makeTempDir('modes-backup'), 'backup.sqlite');
    const backup = await runCli(['backup', file, ...storeFlags(store)]);
    expect(backup.code, backup.stderr).toBe(0);
    expect(modeOf(file).toString(8)).toBe('600');

    const elsewhere = path.join(await makeTempDir('modes-restore'), 'data');
    const restored = await runCli(['restore', file, '--data-dir', elsewhere]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(modeOf(path.join(elsewhere, SQLITE_FILE_NAME)).toString(8)).toBe('600');
  });
});
