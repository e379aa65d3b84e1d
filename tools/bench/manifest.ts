import { readFile, writeFile } from 'node:fs/promises';
import { z } from 'zod';

/** Bumped whenever the generator makes different data: a stored store of another format is made anew. */
export const GENERATOR_FORMAT = 1;

/** The accounts the scenarios drive; every other generated account is there to make the store big. */
export const ROLES = ['big', 'list', 'create', 'array', 'sync'] as const;
export type Role = (typeof ROLES)[number];

export interface StoreShape {
  /** Accounts in all, the big one included. */
  readonly accounts: number;
  /** Tasks of every account but the big one. */
  readonly tasksPerAccount: number;
  readonly bigAccountTasks: number;
}

const credentialSchema = z.object({ username: z.string(), token: z.string() });

const manifestSchema = z.object({
  format: z.number(),
  shape: z.object({ accounts: z.number(), tasksPerAccount: z.number(), bigAccountTasks: z.number() }),
  taskCount: z.number(),
  accounts: z.object({
    big: credentialSchema,
    list: credentialSchema,
    create: credentialSchema,
    array: credentialSchema,
    sync: credentialSchema,
  }),
  generatedAt: z.string(),
  generateSeconds: z.number(),
});

/** What a generated store holds and how to get in: written next to it once it is complete. */
export type Manifest = z.infer<typeof manifestSchema>;
export type Credential = z.infer<typeof credentialSchema>;

export async function writeManifest(file: string, manifest: Manifest): Promise<void> {
  await writeFile(file, `${JSON.stringify(manifest, null, 2)}\n`);
}

/** The manifest of a stored store made by this generator in this shape, or undefined. */
export async function readManifest(file: string, shape: StoreShape): Promise<Manifest | undefined> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    // Missing or cut short: the store is made again.
    return undefined;
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) return undefined;
  const manifest = parsed.data;
  const sameShape =
    manifest.shape.accounts === shape.accounts &&
    manifest.shape.tasksPerAccount === shape.tasksPerAccount &&
    manifest.shape.bigAccountTasks === shape.bigAccountTasks;
  return manifest.format === GENERATOR_FORMAT && sameShape ? manifest : undefined;
}
