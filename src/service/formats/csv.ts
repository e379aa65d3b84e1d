import { FormatError } from './account-json.js';

/**
 * The rows of CSV text (RFC 4180: fields in double quotes may hold commas, line breaks and `""`),
 * each as a map from the header's column names to the row's fields.
 */
export function readCsv(text: string): Array<ReadonlyMap<string, string>> {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const source = text.replace(/^\uFEFF/, '');
  for (let at = 0; at < source.length; at += 1) {
    const char = source[at];
    if (quoted) {
      if (char === '"' && source[at + 1] === '"') {
        field += '"';
        at += 1;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"' && field === '') quoted = true;
    else if (char === ',') {
      row.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && source[at + 1] === '\n') at += 1;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += char;
  }
  if (quoted) throw new FormatError('a quoted CSV field is never closed');
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  const [header, ...body] = rows.filter((cells) => cells.some((cell) => cell !== ''));
  if (header === undefined) return [];
  const names = header.map((name) => name.trim().toUpperCase());
  return body.map((cells) => new Map(names.map((name, index) => [name, cells[index] ?? ''])));
}
