import { COMMON_FLAGS, type CommandSpec } from './commands.js';
import { FLAGS, type FlagName, type FlagSpec } from './flags.js';
import { truthy } from './flag-values.js';
import { GivenFlags } from './given-flags.js';

/** The process environment, or a test's. */
export type Env = Readonly<Record<string, string | undefined>>;

/** A string flag, else its first environment variable that is set, else undefined. */
export function setting(given: GivenFlags, name: FlagName, env: Env): string | undefined {
  const value = given.text(name);
  if (value !== undefined) return value;
  const spec: FlagSpec = FLAGS[name];
  for (const variable of spec.env ?? []) {
    const fromEnv = env[variable];
    if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  }
  return undefined;
}

/** A boolean flag, else its environment variable read as 1/true/yes/on. */
export function switchSetting(given: GivenFlags, name: FlagName, env: Env): boolean {
  if (given.on(name)) return true;
  const spec: FlagSpec = FLAGS[name];
  return (spec.env ?? []).some((variable) => truthy(env[variable]));
}

/** The flags given, and for each flag of the command not given, its environment variable when set. */
export function withEnvironment(given: GivenFlags, spec: CommandSpec, env: Env): GivenFlags {
  const values = new Map<FlagName, readonly string[] | true>();
  for (const name of [...spec.flags, ...COMMON_FLAGS]) {
    const flag: FlagSpec = FLAGS[name];
    if (flag.kind === 'boolean') {
      if (switchSetting(given, name, env)) values.set(name, true);
      continue;
    }
    const texts = given.texts(name);
    const value = setting(given, name, env);
    if (texts.length > 0) values.set(name, texts);
    else if (value !== undefined) values.set(name, [value]);
  }
  return new GivenFlags(values);
}
