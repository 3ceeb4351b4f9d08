import { BuildRejected } from './build-rejected';
import { checkEntryName } from './zip-entry-name';
import { sizeLimitExceeded, type ZipLimits } from './zip-limits';

/** What the central directory claims about one entry; none of it has been verified yet. */
export interface EntryHeader {
  name: string;
  /** `externalFileAttributes >>> 16`: unix type and permission bits, 0 when the archive has none. */
  unixMode: number;
  uncompressedSize: number;
  /** False for encrypted entries and compression methods other than store/deflate. */
  decodable: boolean;
}

export interface PlannedEntry {
  /** Normalized relative posix path. */
  path: string;
  kind: 'file' | 'directory';
  /** Files: 0o755 when the archive marks them executable, else 0o644 (never setuid/setgid/sticky). Folders: 0o755. */
  mode: number;
  /** Declared uncompressed size; extraction refuses to write more than this. */
  size: number;
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
// Below this, high ratios are normal (text, empty files) and harmless.
const RATIO_CHECK_FROM_BYTES = 2 ** 20;

/**
 * Validates every entry before anything is written, so a hostile archive is rejected
 * as a whole. Returns one planned entry per header, in the same order.
 */
export function planEntries(headers: readonly EntryHeader[], archiveBytes: number, limits: ZipLimits): PlannedEntry[] {
  const planned = headers.map(planEntry);
  checkDeclaredSizes(planned, archiveBytes, limits);
  checkPathsDisjoint(planned);
  return planned;
}

function planEntry(header: EntryHeader): PlannedEntry {
  const path = checkEntryName(header.name);
  const type = header.unixMode & S_IFMT;
  // All symlinks are rejected, even ones pointing inside the build: resolving targets safely
  // (and stopping later entries from being written through them) is more risk than builds need.
  if (type === S_IFLNK) throw new BuildRejected(`entry "${path}" is a symbolic link; symbolic links are not supported`);
  if (type !== 0 && type !== S_IFREG && type !== S_IFDIR) {
    throw new BuildRejected(`entry "${path}" is a device, FIFO or socket; only files and folders are supported`);
  }
  if (!header.decodable) {
    throw new BuildRejected(`entry "${path}" is encrypted or uses an unsupported compression method`);
  }
  const isDirectory = type === S_IFDIR || /[\\/]$/.test(header.name);
  return {
    path,
    kind: isDirectory ? 'directory' : 'file',
    mode: isDirectory || header.unixMode & 0o111 ? 0o755 : 0o644,
    size: header.uncompressedSize,
  };
}

function checkDeclaredSizes(planned: readonly PlannedEntry[], archiveBytes: number, limits: ZipLimits): void {
  const total = planned.reduce((sum, e) => sum + e.size, 0);
  if (total > limits.maxUncompressedBytes) throw sizeLimitExceeded(limits);
  // Measured against the archive's real size, not the sum of per-entry compressed sizes,
  // which overlapping entries (a known zip bomb technique) would inflate.
  const ratio = total / archiveBytes;
  if (total > RATIO_CHECK_FROM_BYTES && ratio > limits.maxRatio) {
    throw new BuildRejected(
      `archive expands ${Math.round(ratio)} times (limit ${limits.maxRatio}); refusing a likely zip bomb`,
    );
  }
}

function checkPathsDisjoint(planned: readonly PlannedEntry[]): void {
  const kinds = new Map<string, PlannedEntry['kind']>();
  for (const entry of planned) {
    if (kinds.has(entry.path)) throw new BuildRejected(`duplicate entry "${entry.path}"`);
    kinds.set(entry.path, entry.kind);
  }
  for (const entry of planned) {
    for (let cut = entry.path.lastIndexOf('/'); cut > 0; cut = entry.path.lastIndexOf('/', cut - 1)) {
      const parent = entry.path.slice(0, cut);
      if (kinds.get(parent) === 'file') throw new BuildRejected(`entry "${entry.path}" is inside "${parent}", which is a file`);
    }
  }
}
