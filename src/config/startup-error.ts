/**
 * A reason the service cannot start or a command cannot run that the operator can fix (a port in
 * use, a folder it may not write, a missing file…): its message is the one line shown, saying
 * what is wrong and what to do; `cause` keeps the underlying error for `--debug`.
 */
export class StartupError extends Error {
  override name = 'StartupError';
}
