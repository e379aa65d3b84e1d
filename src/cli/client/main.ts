import type { ClientCommand } from '../../config/command.js';
import { clientFailure, runClientCommand } from './commands.js';

/** Runs a client command as the process: its output on stdout, failures on stderr with exit 1 or 2. */
export async function runClient(command: ClientCommand): Promise<void> {
  try {
    await runClientCommand(command, {
      out: (line) => console.log(line),
      json: (value) => console.log(JSON.stringify(value, null, 2)),
      tell: (line) => console.error(line),
      readInput: async () => {
        const chunks: Buffer[] = [];
        for await (const chunk of process.stdin)
          chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
        return Buffer.concat(chunks).toString('utf8');
      },
    });
  } catch (error) {
    const failure = clientFailure(error);
    if (failure === undefined) throw error;
    console.error(`task-service: ${failure.message}`);
    process.exitCode = failure.code;
  }
}
