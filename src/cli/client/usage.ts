/** The terminal client's commands, known to the `task-service` entry point without loading the client. */
export const CLIENT_COMMANDS = ['login', 'add', 'ls', 'done', 'sync'] as const;
export type ClientCommand = (typeof CLIENT_COMMANDS)[number];

export function isClientCommand(word: string | undefined): word is ClientCommand {
  return CLIENT_COMMANDS.some((command) => command === word);
}

export const CLIENT_USAGE = `
Client (talks to a running service over HTTP):
  task-service login <url> --token <token|->   store the URL and a token (made by "token create"; - reads it from stdin)
  task-service add "<quick add text>" [--json]  #project @context *tag !1-!3 ^today|^tomorrow|^mon|^YYYY-MM-DD ^someday ~next ~waiting
  task-service ls [inbox|next|scheduled|someday|waiting|completed] [--project P] [--context C] [--json]
  task-service done <id|title prefix> [--json]
  task-service sync [--json]                     bring the local copy up to date; prints what changed`;
