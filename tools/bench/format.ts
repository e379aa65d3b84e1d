/** Number formats of the table: the same everywhere, so columns read alike. */

export function count(value: number): string {
  return Math.round(value).toLocaleString('en');
}

export function ms(value: number): string {
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

/** Megabytes of 10^6 bytes, as the RSS goal is stated. */
export function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(0)} MB`;
}

/** Two significant digits below 10 (0.42, 0.0037, 4.8), whole numbers above. */
export function ratio(value: number): string {
  return value >= 10 ? value.toFixed(0) : String(Number(value.toPrecision(2)));
}

export function gibibytes(bytes: number): string {
  return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
}
