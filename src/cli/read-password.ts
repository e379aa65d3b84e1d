import { AdminError } from '../service/accounts.js';

/** Reads all of standard input as the password, without the final line break. */
export async function passwordFromStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/**
 * Asks for a password at the terminal without echoing it (ACCOUNTS.md section 1). Undefined when
 * standard input is not a terminal: the caller then asks for `--password-stdin`.
 */
export async function passwordFromTerminal(prompt: string): Promise<string | undefined> {
  const input = process.stdin;
  if (!input.isTTY) return undefined;
  // Echo off before the prompt shows: what is typed at once after it is not shown either.
  input.setRawMode(true);
  input.resume();
  process.stderr.write(prompt);
  try {
    return await new Promise<string>((resolve, reject) => {
      let typed = '';
      const onData = (chunk: Buffer): void => {
        for (const char of chunk.toString('utf8')) {
          if (char === '\r' || char === '\n') {
            input.off('data', onData);
            resolve(typed);
            return;
          }
          if (char === '\u0003') {
            input.off('data', onData);
            reject(new Error('interrupted'));
            return;
          }
          typed = char === '\u007f' || char === '\b' ? typed.slice(0, -1) : typed + char;
        }
      };
      input.on('data', onData);
    });
  } finally {
    input.setRawMode(false);
    input.pause();
    process.stderr.write('\n');
  }
}

/**
 * A new password asked for twice at the terminal, so that a typo not seen (nothing is echoed)
 * does not become the password. Undefined when standard input is not a terminal; an AdminError
 * when the two differ (nothing is changed).
 */
export async function newPasswordFromTerminal(): Promise<string | undefined> {
  const first = await passwordFromTerminal('New password: ');
  if (first === undefined) return undefined;
  const second = await passwordFromTerminal('Repeat the new password: ');
  if (second !== first) throw new AdminError('the two passwords differ: nothing changed; run user passwd again');
  return first;
}
