import { COMMANDS, COMMON_FLAGS, FLAGS, type CommandSpec, type FlagName, type FlagSpec } from '../config-flags.js';

function usageOf(spec: CommandSpec): string {
  return ['task-service', ...spec.words, ...spec.args, '[flags]'].join(' ');
}

/** One flag's lines: the flag and its value, then what it does, its default and its variables. */
function flagLines(name: FlagName): string[] {
  const flag: FlagSpec = FLAGS[name];
  const head = `  --${name}${flag.placeholder === undefined ? '' : ` ${flag.placeholder}`}`;
  const details: string[] = [];
  if (flag.defaultText !== undefined) details.push(`default: ${flag.defaultText}`);
  if (flag.env !== undefined) details.push(`env: ${flag.env.join(' or ')}`);
  const lines = [`${head.padEnd(26)}${flag.description}`];
  if (details.length > 0) lines.push(`${''.padEnd(26)}(${details.join('; ')})`);
  return lines;
}

/** The help of one command: usage, what it does, each flag with its default and variable. */
function commandHelp(spec: CommandSpec): string {
  const lines = [`Usage: ${usageOf(spec)}`, '', `${spec.summary[0]?.toUpperCase() ?? ''}${spec.summary.slice(1)}.`];
  if (spec.notes !== undefined) lines.push('', ...spec.notes);
  lines.push('', 'Flags:');
  for (const name of [...spec.flags, ...COMMON_FLAGS]) lines.push(...flagLines(name));
  return lines.join('\n');
}

/** The help of task-service: its commands, and where each one's flags are described. */
function overview(): string {
  const width = Math.max(...COMMANDS.map((spec) => [...spec.words, ...spec.args].join(' ').length)) + 4;
  return [
    'Usage: task-service <command> [flags]',
    '',
    'Commands:',
    ...COMMANDS.map((spec) => `  ${[...spec.words, ...spec.args].join(' ').padEnd(width)}${spec.summary}`),
    '',
    'task-service <command> --help describes the flags of a command, with their defaults and',
    'environment variables. task-service --version prints the version.',
    '',
    'Flags:',
    ...COMMON_FLAGS.flatMap(flagLines),
  ].join('\n');
}

export function helpText(topic: CommandSpec | null): string {
  return topic === null ? overview() : commandHelp(topic);
}
