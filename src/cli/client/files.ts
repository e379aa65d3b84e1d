/**
 * The terminal client's files in the user's config folder (`$XDG_CONFIG_HOME/task-service`, else
 * `~/.config/task-service`): the credentials and the local copy with its sync cursor (config/parse.ts finds the folder). The folder
 * is private (0700) and each file readable by its owner only (0600): the token is a password.
 */
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const CREDENTIALS_FILE = 'credentials.json';
export const LOCAL_COPY_FILE = 'tasks.json';

/** The parsed JSON of a file of the folder, or undefined when there is none yet. */
export async function readJsonFile(dir: string, name: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path.join(dir, name), 'utf8');
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return undefined;
    throw error;
  }
  return JSON.parse(text);
}

/** Writes the file whole (a temp file renamed over it), owner-only from the first byte. */
export async function writeJsonFile(dir: string, name: string, value: unknown): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, name);
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  // The mode given to writeFile applies only to a new file; make sure of it whatever was there.
  await chmod(temp, 0o600);
  await rename(temp, file);
}

/** Removes a file of the folder; none there is fine. */
export async function removeFile(dir: string, name: string): Promise<void> {
  await rm(path.join(dir, name), { force: true });
}
