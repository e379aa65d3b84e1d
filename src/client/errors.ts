import type { Retcode } from '../http/wire/errors.js';

/** What the service answered instead of success: its retcode and message, and the HTTP status. */
export class TaskServiceError extends Error {
  override name = 'TaskServiceError';

  constructor(
    /** The contract's code (`E004`, …); null when the answer was not the contract's error body (a proxy's page, say). */
    readonly retcode: Retcode | null,
    /** The message, unescaped. */
    readonly retmsg: string,
    readonly status: number,
    /** The request data the service echoed, unescaped. */
    readonly reqdata: string,
  ) {
    super(retcode === null ? `HTTP ${status}: ${retmsg}` : `${retcode} ${retmsg}`);
  }
}
