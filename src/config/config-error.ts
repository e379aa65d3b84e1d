/** A mistake in the command line or environment, shown to the operator as it is. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
