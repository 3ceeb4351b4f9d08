import { crc32, deflateRawSync } from 'node:zlib';

/**
 * One entry of a hand-built ZIP. Unlike yazl this writes whatever it is given
 * (`../evil`, absolute names, symlinks, devices, lying sizes), which is the point.
 */
export interface RawEntry {
  name: string;
  /** Uncompressed content; ignored when `deflated` is given. */
  data?: Buffer;
  /** Pre-compressed raw DEFLATE payload (give `declaredSize` with it), so a bomb is compressed once per test file. */
  deflated?: Buffer;
  method?: 'store' | 'deflate';
  /** Full unix mode incl. file type, e.g. 0o100755 or 0o120777; omitted = no unix attributes. */
  mode?: number;
  /** Overrides the uncompressed size written in the headers (to lie). */
  declaredSize?: number;
  /** Overrides the CRC-32 written in the headers. */
  crc?: number;
  /** General purpose bit flags, e.g. 0x1 for "encrypted". */
  flags?: number;
}

const UNIX = 3;
const VERSION = 20;
const DOS_DATE_1980_01_01 = (1 << 5) | 1;

/** A minimal valid ZIP: local headers with data, central directory, end record; no ZIP64. */
export function rawZip(entries: readonly RawEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const data = entry.data ?? Buffer.alloc(0);
    const deflate = entry.deflated !== undefined || entry.method === 'deflate';
    const payload = entry.deflated ?? (deflate ? deflateRawSync(data) : data);
    const fields = {
      flags: (entry.flags ?? 0) | 0x800, // bit 11: names are UTF-8
      method: deflate ? 8 : 0,
      crc: entry.crc ?? crc32(data),
      compressedSize: payload.length,
      size: entry.declaredSize ?? data.length,
    };

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(VERSION, 4);
    writeCommon(local, 6, fields, name.length);
    locals.push(local, name, payload);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(entry.mode === undefined ? VERSION : (UNIX << 8) | VERSION, 4);
    central.writeUInt16LE(VERSION, 6);
    writeCommon(central, 8, fields, name.length);
    // 32: comment length, 34: disk number, 36: internal attributes stay 0.
    central.writeUInt32LE(((entry.mode ?? 0) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);

    offset += local.length + name.length + payload.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

interface CommonFields {
  flags: number;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
}

/** The run of fields local and central headers share, from "flags" to "extra field length". */
function writeCommon(header: Buffer, at: number, f: CommonFields, nameLength: number): void {
  header.writeUInt16LE(f.flags, at);
  header.writeUInt16LE(f.method, at + 2);
  header.writeUInt16LE(0, at + 4); // time
  header.writeUInt16LE(DOS_DATE_1980_01_01, at + 6);
  header.writeUInt32LE(f.crc >>> 0, at + 8);
  header.writeUInt32LE(f.compressedSize, at + 12);
  header.writeUInt32LE(f.size, at + 16);
  header.writeUInt16LE(nameLength, at + 20);
  header.writeUInt16LE(0, at + 22); // extra field length
}
