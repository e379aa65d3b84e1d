/**
 * A file the command was given that cannot be used as it is (an import that is no backup of
 * ours, a zip past its limits): one line saying why, exit 1, nothing changed. Not a mistake on
 * the command line, which exits 2.
 */
export class RefusedFileError extends Error {
  override name = 'RefusedFileError';
}
