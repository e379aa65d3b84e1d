import { promisify } from 'node:util';
import { inflateRaw } from 'node:zlib';
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

/**
 * The limits of what an archive may unpack to. A Todoist backup is one small CSV file per project
 * (Todoist allows a few hundred projects; ten thousand tasks are a few MiB of CSV), so these are
 * far above any real backup and far below what would hurt the server (docs/operations.md).
 */
export const ZIP_LIMITS = {
  /** Central-directory records, folders included. */
  entries: 10_000,
  /** All files together, unpacked. */
  totalBytes: 64 * 1024 * 1024,
  /** Unpacked size over packed size of one file; text packs to a tenth, a bomb to a thousandth. */
  ratio: 100,
  /** Files up to this size are not held to the ratio: a tiny file of repeated lines may pack tighter. */
  ratioFreeBytes: 1024 * 1024,
} as const;

const MIB = 1024 * 1024;

const inflateRawAsync = promisify(inflateRaw);

function endOfDirectory(zip: Buffer): number {
  // The record is 22 bytes, followed by a comment of at most 65535.
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at -= 1) {
    if (zip.readUInt32LE(at) === END_OF_DIRECTORY) return at;
  }
  throw new FormatError('not a zip file');
}

/** A file's record in the central directory, and where its bytes lie in the archive. */
interface Located {
  readonly name: string;
  readonly method: number;
  readonly dosDate: number;
  readonly size: number;
  /** Where its local header starts and its packed bytes start and end. */
  readonly localAt: number;
  readonly dataAt: number;
  readonly dataEnd: number;
}

/**
 * The central directory's file records, checked against the limits before anything is unpacked:
 * the count, the declared sizes (each, its ratio, and their sum) and that no two files share bytes
 * (a bomb points many records at one packed stream).
 */
function locate(zip: Buffer): Located[] {
  if (zip.length < 22) throw new FormatError('not a zip file');
  const end = endOfDirectory(zip);
  const count = zip.readUInt16LE(end + 10);
  if (count > ZIP_LIMITS.entries) {
    throw new FormatError(`the zip holds ${count} entries, more than the ${ZIP_LIMITS.entries} an import reads`);
  }
  const directoryAt = zip.readUInt32LE(end + 16);
  let at = directoryAt;
  let total = 0;
  const files: Located[] = [];
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
    total += size;
    if (total > ZIP_LIMITS.totalBytes) {
      throw new FormatError(
        `the zip's files unpack to more than the ${ZIP_LIMITS.totalBytes / MIB} MiB an import reads`,
      );
    }
    if (size > ZIP_LIMITS.ratioFreeBytes && size > compressedSize * ZIP_LIMITS.ratio) {
      throw new FormatError(`${name} in the zip unpacks to over ${ZIP_LIMITS.ratio} times its packed size`);
    }
    if (localAt + 30 > directoryAt || zip.readUInt32LE(localAt) !== LOCAL_HEADER) {
      throw new FormatError('a damaged zip file');
    }
    const dataAt = localAt + 30 + zip.readUInt16LE(localAt + 26) + zip.readUInt16LE(localAt + 28);
    const dataEnd = dataAt + compressedSize;
    if (dataEnd > directoryAt) throw new FormatError('a damaged zip file');
    files.push({ name, method, dosDate, size, localAt, dataAt, dataEnd });
  }
  const inOrder = [...files].sort((a, b) => a.localAt - b.localAt);
  for (let index = 1; index < inOrder.length; index += 1) {
    const previous = inOrder[index - 1];
    const next = inOrder[index];
    if (previous !== undefined && next !== undefined && next.localAt < previous.dataEnd) {
      throw new FormatError(`${previous.name} and ${next.name} in the zip overlap: not an archive a tool writes`);
    }
  }
  return files;
}

/**
 * A file's bytes, unpacked to at most its declared size: inflation runs on zlib's thread pool in
 * small steps, so the event loop goes on serving, and stops at the size the directory declared
 * (which `locate` held to the limits), whatever the packed stream would give.
 */
async function unpack(zip: Buffer, file: Located): Promise<Buffer> {
  const raw = zip.subarray(file.dataAt, file.dataEnd);
  let data: Buffer;
  if (file.method === STORED) data = Buffer.from(raw);
  else if (file.method === DEFLATED) {
    try {
      data = await inflateRawAsync(raw, { maxOutputLength: Math.max(1, file.size) });
    } catch (error) {
      if (error instanceof RangeError) {
        throw new FormatError(`${file.name} in the zip unpacks to more than the size it declares`);
      }
      throw new FormatError(`${file.name} in the zip is damaged`);
    }
  } else {
    throw new FormatError(`${file.name} in the zip is compressed in a way this reader does not know (${file.method})`);
  }
  if (data.length !== file.size) throw new FormatError(`${file.name} in the zip is not the size it declares`);
  return data;
}

/**
 * The files of a zip archive (stored or deflated; no zip64, no encryption: what Todoist's backup
 * is), read from its central directory, refused whole (FormatError, saying why) past ZIP_LIMITS.
 */
export async function readZip(zip: Buffer): Promise<ZipEntry[]> {
  const entries: ZipEntry[] = [];
  for (const file of locate(zip)) {
    entries.push({
      name: file.name,
      data: await unpack(zip, file),
      modified: { year: 1980 + (file.dosDate >> 9), month: (file.dosDate >> 5) & 0x0f, day: file.dosDate & 0x1f },
    });
  }
  return entries;
}
