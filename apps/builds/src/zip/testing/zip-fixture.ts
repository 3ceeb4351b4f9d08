// The shared fixture of the processZip int specs: a temp work dir per test with an upload path and a
// builds dir, and unpack / expectRejected over the real processZip.
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { buffer } from 'node:stream/consumers';
import * as yazl from 'yazl';
import { BuildRejected, processZip, type ZipLimits } from '../process-zip';

export const MiB = 2 ** 20;

export interface YazlFile {
  name: string;
  data?: string | Buffer;
  mode?: number;
}

export function yazlZip(files: readonly YazlFile[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const f of files) {
    if (f.name.endsWith('/')) zip.addEmptyDirectory(f.name);
    else zip.addBuffer(Buffer.from(f.data ?? ''), f.name, f.mode === undefined ? {} : { mode: f.mode });
  }
  zip.end();
  return buffer(zip.outputStream);
}

export const modeOf = async (file: string) => (await stat(file)).mode & 0o7777;

export type UnpackOptions = { executablePath?: string; limits?: Partial<ZipLimits> };

/** Registers beforeEach / afterEach (call inside a describe); the paths are set for each test. */
export function zipFixture() {
  const f = {
    work: '', zipPath: '', buildsDir: '', dest: '',
    async unpack(zip: Buffer, options?: UnpackOptions) {
      await writeFile(f.zipPath, zip);
      return processZip(f.zipPath, f.dest, options);
    },
    /** Rejected with BuildRejected, and neither destDir nor a temp dir is left behind. */
    async expectRejected(zip: Buffer, message: string | RegExp, options?: UnpackOptions) {
      const outcome = f.unpack(zip, options);
      await expect(outcome).rejects.toThrow(BuildRejected);
      await expect(outcome).rejects.toThrow(message);
      expect(await readdir(f.buildsDir)).toEqual([]);
    },
  };
  beforeEach(async () => {
    f.work = await mkdtemp(path.join(tmpdir(), 'process-zip-'));
    f.zipPath = path.join(f.work, 'uploads', 'build.zip');
    f.buildsDir = path.join(f.work, 'builds', 'project-1');
    f.dest = path.join(f.buildsDir, 'build-1');
    await mkdir(path.dirname(f.zipPath), { recursive: true });
    await mkdir(f.buildsDir, { recursive: true });
  });
  afterEach(() => rm(f.work, { recursive: true, force: true }));
  return f;
}
