import { copyFile, mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { openStore, SQLITE_FILE_NAME } from '../../src/store/open.js';
import { generate } from './generate.js';
import { readManifest, writeManifest, type Manifest, type StoreShape } from './manifest.js';
import { progress } from './progress.js';

export interface SqliteBenchStore {
  readonly manifest: Manifest;
  /** The data folder to serve: a copy of the generated store, so every run starts from the same data. */
  readonly dataDir: string;
  /** Whether this run generated the store (else it reused `.bench/`). */
  readonly generated: boolean;
  readonly bytes: number;
}

/**
 * The generated SQLite store in `<benchDir>/sqlite/`, made when missing or of another shape and
 * reused otherwise; the manifest is written last, so an interrupted generation is made again.
 * Each run serves a copy in `<workDir>`: the scenarios write (creates, sync preparation) and the
 * next run must find the same data.
 */
export async function prepareSqliteStore(
  benchDir: string,
  workDir: string,
  shape: StoreShape,
  regenerate: boolean,
): Promise<SqliteBenchStore> {
  const folder = path.join(benchDir, 'sqlite');
  const manifestFile = path.join(folder, 'manifest.json');
  let manifest = regenerate ? undefined : await readManifest(manifestFile, shape);
  const generated = manifest === undefined;
  if (manifest === undefined) {
    progress(`generating the SQLite store in ${folder} (once; later runs reuse it)`);
    await rm(folder, { recursive: true, force: true });
    await mkdir(folder, { recursive: true });
    const store = await openStore({ engine: 'sqlite', dataDir: folder });
    try {
      await store.migrate();
      manifest = await generate(store, shape, { concurrency: 1, label: 'SQLite' });
    } finally {
      // Closing the last connection checkpoints the WAL into the file: the file alone is the store.
      await store.close();
    }
    await writeManifest(manifestFile, manifest);
    progress(`SQLite store generated in ${manifest.generateSeconds.toFixed(1)} s`);
  } else {
    progress(`reusing the SQLite store in ${folder} (generated ${manifest.generatedAt})`);
  }
  const source = path.join(folder, SQLITE_FILE_NAME);
  const dataDir = path.join(workDir, 'sqlite-data');
  await mkdir(dataDir, { recursive: true });
  const copyStarted = Date.now();
  await copyFile(source, path.join(dataDir, SQLITE_FILE_NAME));
  const { size } = await stat(source);
  progress(
    `copied the store (${(size / 2 ** 20).toFixed(0)} MiB) for this run in ${((Date.now() - copyStarted) / 1000).toFixed(1)} s`,
  );
  return { manifest, dataDir, generated, bytes: size };
}
