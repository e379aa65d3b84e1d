import type { parseArgs } from 'node:util';
import { COMMANDS, COMMON_FLAGS, commandName, type CommandSpec } from './commands.js';
import { ConfigError } from './config-error.js';
import { FLAGS, type FlagName, type FlagSpec } from './flags.js';
import { nearMiss } from './near-miss.js';

/** One token of node's parser: an option (a flag), a positional or the `--` terminator. */
export type ArgToken = NonNullable<ReturnType<typeof parseArgs>['tokens']>[number];

/** The flags given on the command line, checked against the command's entry in COMMANDS. */
export class GivenFlags {
  /** By name: every value of a string flag, in order; true for a boolean flag. */
  readonly #values: ReadonlyMap<FlagName, readonly string[] | true>;

  constructor(values: ReadonlyMap<FlagName, readonly string[] | true>) {
    this.#values = values;
  }

  /** Whether a boolean flag was given. */
  on(name: FlagName): boolean {
    return this.#values.get(name) === true;
  }

  /** The value of a string flag (the last one, when it was given more than once). */
  text(name: FlagName): string | undefined {
    const values = this.#values.get(name);
    return values === undefined || values === true ? undefined : values.at(-1);
  }

  /** Every value of a string flag that may be repeated, in order. */
  texts(name: FlagName): readonly string[] {
    const values = this.#values.get(name);
    return values === undefined || values === true ? [] : values;
  }
}

function isFlagName(name: string): name is FlagName {
  return Object.hasOwn(FLAGS, name);
}

/** Checks each flag given against the command and returns them by name. */
export function readFlags(tokens: readonly ArgToken[], spec: CommandSpec | undefined): GivenFlags {
  const allowed: readonly FlagName[] = spec === undefined ? COMMON_FLAGS : [...spec.flags, ...COMMON_FLAGS];
  const where = spec === undefined ? 'task-service' : `task-service ${commandName(spec)}`;
  const given = new Map<FlagName, string[] | true>();
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const name = token.rawName === '-h' ? 'help' : token.name;
    if (!isFlagName(name) || (token.rawName.length === 2 && token.rawName !== '-h')) {
      const suggestion = nearMiss(name, allowed);
      let hint = suggestion === undefined ? ` (${where} --help lists its flags)` : `: did you mean --${suggestion}?`;
      if (spec?.flags.some((flag) => flag === 'token-stdin') === true) {
        hint = ': a token that starts with - goes after -- (token revoke -- <token>), or use --token-stdin';
      }
      throw new ConfigError(`unknown flag ${token.rawName} for ${where}${hint}`);
    }
    if (!allowed.includes(name)) {
      const owners = COMMANDS.filter((other) => other.flags.some((flag) => flag === name)).map(commandName);
      throw new ConfigError(
        `${where} does not take --${name}` + (owners.length === 0 ? '' : ` (it is a flag of ${owners.join(', ')})`),
      );
    }
    const flag: FlagSpec = FLAGS[name];
    if (flag.kind === 'boolean') {
      if (token.value !== undefined) throw new ConfigError(`--${name} takes no value (got "${token.value}")`);
      given.set(name, true);
    } else {
      if (token.value === undefined)
        throw new ConfigError(`--${name} needs a value: --${name} ${flag.placeholder ?? 'VALUE'}`);
      const earlier = given.get(name);
      given.set(name, flag.multiple === true && Array.isArray(earlier) ? [...earlier, token.value] : [token.value]);
    }
  }
  return new GivenFlags(given);
}
