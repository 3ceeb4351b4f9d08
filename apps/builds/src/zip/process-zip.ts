import { randomBytes } from 'node:crypto';
import { close, createWriteStream, open } from 'node:fs';
import { chmod, mkdir, rename, rm } from 'node:fs/promises';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import * as yauzl from 'yauzl';
import { BuildRejected } from './build-rejected';
import { ByteBudget, guardEntryData } from './entry-data-guard';
import { chooseExecutable } from './find-executable';
import { DEFAULT_ZIP_LIMITS, type ZipLimits } from './zip-limits';
import { planEntries, type EntryHeader, type PlannedEntry } from './zip-plan';

export { BuildRejected } from './build-rejected';
export { DEFAULT_ZIP_LIMITS, type ZipLimits } from './zip-limits';

export interface ProcessedBuild {
  /** Relative to destDir, posix separators. */
  executablePath: string;
  /** Total uncompressed bytes written. */
  sizeBytes: number;
  fileCount: number;
}

/**
 * Unpacks an uploaded (untrusted) build ZIP into destDir and finds its executable.
 * Every entry is validated before anything is written; extraction goes to a temporary
 * sibling that is renamed to destDir only on success and removed on any failure.
 * Throws BuildRejected for anything wrong with the upload; other errors are ours (I/O).
 */
export async function processZip(
  zipPath: string,
  destDir: string,
  options: { executablePath?: string; limits?: Partial<ZipLimits>; log?: (message: string) => void } = {},
): Promise<ProcessedBuild> {
  const limits = { ...DEFAULT_ZIP_LIMITS, ...options.limits };
  const log = options.log ?? (() => undefined);
  const zip = await openZip(zipPath);
  try {
    log(`checking the archive: ${zip.entryCount} entries, ${zip.fileSize} bytes`);
    if (zip.entryCount > limits.maxEntries) {
      throw new BuildRejected(`archive has ${zip.entryCount} entries, more than the limit of ${limits.maxEntries}`);
    }
    const entries = await readEntries(zip);
    const plan = planEntries(entries.map(headerOf), zip.fileSize, limits);
    const declared = plan.reduce((sum, e) => sum + e.size, 0);
    const files = plan.filter((p) => p.kind === 'file').length;
    log(`checks passed: ${files} files and ${plan.length - files} folders, ${declared} bytes uncompressed; no absolute paths, "..", links or special files`);
    const archiveFiles = plan.map((p) => ({ path: p.path, mode: p.mode, isFile: p.kind === 'file' }));
    const { path: executablePath, how } = chooseExecutable(archiveFiles, options.executablePath);
    log(`executable: ${executablePath} (${how})`);
    const written = await extractAtomically(path.resolve(destDir), (root) =>
      extractAll(zip, entries, plan, root, executablePath, limits),
    );
    log(`unpacked ${written.fileCount} files (${written.sizeBytes} bytes); ${executablePath} marked executable`);
    return { executablePath, ...written };
  } finally {
    // Closes the file once any read streams still draining are done.
    zip.close();
  }
}

async function openZip(zipPath: string): Promise<yauzl.ZipFile> {
  // Opening the file ourselves keeps I/O errors (missing upload) apart from format errors.
  const fd = await promisify(open)(zipPath, 'r');
  try {
    // Raw names (decodeStrings: false) so every name check happens in checkEntryName, with our messages.
    return await yauzl.fromFdPromise(fd, {
      lazyEntries: true,
      autoClose: false,
      decodeStrings: false,
      validateEntrySizes: true,
    });
  } catch (err) {
    await promisify(close)(fd);
    throw notAZip(err);
  }
}

function headerOf(entry: yauzl.Entry): EntryHeader {
  return {
    // strictFileNames = true keeps backslashes, so checkEntryName sees (and normalizes) the name as stored.
    name: yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true),
    unixMode: entry.externalFileAttributes >>> 16,
    uncompressedSize: entry.uncompressedSize,
    decodable: entry.canDecodeFileData(),
  };
}

async function readEntries(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  const entries: yauzl.Entry[] = [];
  try {
    for await (const entry of zip.eachEntry()) entries.push(entry);
  } catch (err) {
    throw notAZip(err);
  }
  return entries;
}

async function extractAtomically<T>(destDir: string, extract: (root: string) => Promise<T>): Promise<T> {
  const tmp = `${destDir}.tmp-${randomBytes(8).toString('hex')}`;
  await mkdir(path.dirname(destDir), { recursive: true });
  await mkdir(tmp);
  try {
    const result = await extract(tmp);
    await rename(tmp, destDir);
    return result;
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  }
}

async function extractAll(
  zip: yauzl.ZipFile,
  entries: readonly yauzl.Entry[],
  plan: readonly PlannedEntry[],
  root: string,
  executablePath: string,
  limits: ZipLimits,
): Promise<Omit<ProcessedBuild, 'executablePath'>> {
  const budget = new ByteBudget(limits);
  let fileCount = 0;
  for (const [i, planned] of plan.entries()) {
    const target = insideRoot(root, planned.path);
    if (planned.kind === 'directory') {
      await mkdir(target, { recursive: true, mode: planned.mode });
      continue;
    }
    await mkdir(path.dirname(target), { recursive: true });
    const source = await zip.openReadStreamPromise(entries[i]).catch((err: unknown) => {
      throw notAZip(err, planned.path);
    });
    await pipeline(
      readErrorsAsRejections(source, planned.path),
      (chunks: AsyncIterable<Buffer>) => guardEntryData(chunks, { ...planned, crc32: entries[i].crc32 }, budget),
      // 'wx' refuses to follow or overwrite anything already at target.
      createWriteStream(target, { flags: 'wx', mode: 0o600 }),
    );
    await chmod(target, planned.mode);
    fileCount += 1;
  }
  await chmod(insideRoot(root, executablePath), 0o755);
  return { sizeBytes: budget.spent, fileCount };
}

/** Errors while reading or inflating entry data mean a broken archive, not a failure on our side. */
async function* readErrorsAsRejections(source: Readable, entryPath: string): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of source) yield chunk as Buffer;
  } catch (err) {
    throw notAZip(err, entryPath);
  }
}

/** Defence in depth: checkEntryName already guarantees this for every planned path. */
function insideRoot(root: string, relative: string): string {
  const full = path.resolve(root, relative);
  if (!full.startsWith(root + path.sep)) throw new BuildRejected(`entry "${relative}" would be written outside the build`);
  return full;
}

function notAZip(err: unknown, entryPath?: string): BuildRejected {
  const reason = err instanceof Error ? err.message : String(err);
  return new BuildRejected(`not a valid ZIP archive: ${entryPath === undefined ? '' : `entry "${entryPath}": `}${reason}`);
}
