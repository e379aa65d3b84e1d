import { inflateRawSync } from 'node:zlib';
import { FormatError } from './account-json.js';

/** One file of a zip archive, read whole. */
export interface ZipEntry {
  readonly name: string;
  readonly data: Buffer;
  /** The modification time the archive records (MS-DOS form: local time, two-second steps). */
  readonly modified: { readonly year: number; readonly month: number; readonly day: number };
}

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;
/** Past this an entry is refused: a backup's CSV files are small, a zip bomb is not. */
const MAX_ENTRY_BYTES = 64 * 1024 * 1024;

function endOfDirectory(zip: Buffer): number {
  // The record is 22 bytes, followed by a comment of at most 65535.
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at -= 1) {
    if (zip.readUInt32LE(at) === END_OF_DIRECTORY) return at;
  }
  throw new FormatError('not a zip file');
}

/**
 * The files of a zip archive (stored or deflated; no zip64, no encryption: what Todoist's backup
 * is), read from its central directory.
 */
export function readZip(zip: Buffer): ZipEntry[] {
  if (zip.length < 22) throw new FormatError('not a zip file');
  const end = endOfDirectory(zip);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let index = 0; index < count; index += 1) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== DIRECTORY_ENTRY) throw new FormatError('a damaged zip file');
    const method = zip.readUInt16LE(at + 10);
    const dosDate = zip.readUInt16LE(at + 14);
    const compressedSize = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localAt = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    at += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith('/')) continue;
    if (size > MAX_ENTRY_BYTES) throw new FormatError(`${name} in the zip is larger than a backup's file can be`);
    if (localAt + 30 > zip.length || zip.readUInt32LE(localAt) !== LOCAL_HEADER) {
      throw new FormatError('a damaged zip file');
    }
    const dataAt = localAt + 30 + zip.readUInt16LE(localAt + 26) + zip.readUInt16LE(localAt + 28);
    const raw = zip.subarray(dataAt, dataAt + compressedSize);
    let data: Buffer;
    if (method === STORED) data = Buffer.from(raw);
    else if (method === DEFLATED) data = inflateRawSync(raw, { maxOutputLength: MAX_ENTRY_BYTES });
    else throw new FormatError(`${name} in the zip is compressed in a way this reader does not know (${method})`);
    entries.push({
      name,
      data,
      modified: { year: 1980 + (dosDate >> 9), month: (dosDate >> 5) & 0x0f, day: dosDate & 0x1f },
    });
  }
  return entries;
}
