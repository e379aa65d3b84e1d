import { COMMAND_GROUPS, COMMANDS, COMMON_FLAGS, type CommandSpec } from '../config/commands.js';
import { FLAGS, type FlagName, type FlagSpec } from '../config/flags.js';

/** The command and its arguments, as the overview's first column and the usage line show them. */
function synopsis(spec: CommandSpec): string {
  return [...spec.words, ...spec.args].join(' ');
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
  const lines = [
    `Usage: task-service ${synopsis(spec)} [flags]`,
    '',
    `${spec.summary[0]?.toUpperCase() ?? ''}${spec.summary.slice(1)}.`,
  ];
  if (spec.notes !== undefined) lines.push('', ...spec.notes);
  lines.push('', 'Flags:');
  for (const name of [...spec.flags, ...COMMON_FLAGS]) lines.push(...flagLines(name));
  return lines.join('\n');
}

/** A newcomer's first commands, in order: the server, an account, a token, the terminal client. */
const FIRST_SESSION = [
  'task-service serve                               (a terminal of its own; Ctrl-C stops it)',
  'task-service user add <username>',
  'task-service token create <username>',
  'task-service login <url> --token <token|->',
  'task-service add "Try Task Service ^today"',
];

/** The help of task-service: every command with what it does, section by section. */
function overview(): string {
  const width = Math.max(...COMMANDS.map((spec) => synopsis(spec).length)) + 3;
  const sections = Object.entries(COMMAND_GROUPS).flatMap(([group, heading]) => [
    '',
    heading,
    ...COMMANDS.filter((spec) => spec.group === group).map(
      (spec) => `  ${synopsis(spec).padEnd(width)}${spec.summary}`,
    ),
  ]);
  return [
    'Usage: task-service <command> [flags]',
    ...sections,
    '',
    'A first session:',
    ...FIRST_SESSION.map((line) => `  ${line}`),
    '',
    'task-service <command> --help describes a command and its flags, with their defaults and',
    'environment variables. task-service --version prints the version.',
    '',
    'Flags:',
    ...COMMON_FLAGS.flatMap(flagLines),
  ].join('\n');
}

export function helpText(topic: CommandSpec | null): string {
  return topic === null ? overview() : commandHelp(topic);
}
