import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { rawZip } from './testing/raw-zip';
import { modeOf, yazlZip, zipFixture } from './testing/zip-fixture';

describe('processZip', () => {
  const f = zipFixture();
  const { unpack, expectRejected } = f;

  describe('valid builds', () => {
    it('unpacks a build with "server" at the top level', async () => {
      const level = randomBytes(100_000);
      const zip = await yazlZip([
        { name: 'server', data: '#!/bin/sh\necho hi\n', mode: 0o100644 },
        { name: 'data/', mode: 0o40755 },
        { name: 'data/level.dat', data: level },
        { name: 'config/settings.json', data: '{"port":7777}', mode: 0o100666 },
        { name: 'tools/helper', data: 'x', mode: 0o100755 },
        { name: 'tools/suid', data: 'y', mode: 0o104755 },
      ]);

      const result = await unpack(zip);

      expect(result).toEqual({ executablePath: 'server', sizeBytes: 18 + 100_000 + 13 + 1 + 1, fileCount: 5 });
      expect(await readFile(path.join(f.dest, 'server'), 'utf8')).toBe('#!/bin/sh\necho hi\n');
      expect((await readFile(path.join(f.dest, 'data/level.dat'))).equals(level)).toBe(true);
      expect(await readFile(path.join(f.dest, 'config/settings.json'), 'utf8')).toBe('{"port":7777}');
      expect(await modeOf(path.join(f.dest, 'server'))).toBe(0o755);
      expect(await modeOf(path.join(f.dest, 'tools/helper'))).toBe(0o755);
      expect(await modeOf(path.join(f.dest, 'tools/suid'))).toBe(0o755);
      expect(await modeOf(path.join(f.dest, 'config/settings.json'))).toBe(0o644);
      expect(await readdir(f.buildsDir)).toEqual(['build-1']);
    });

    it('finds the executable inside a single wrapping folder', async () => {
      const zip = await yazlZip([
        { name: 'MyGame/' },
        { name: 'MyGame/Game.x86_64', data: 'elf' },
        { name: 'MyGame/Game_Data/level0', data: 'level' },
        { name: '__MACOSX/MyGame/._Game.x86_64', data: 'fork' },
      ]);

      const result = await unpack(zip);

      expect(result.executablePath).toBe('MyGame/Game.x86_64');
      expect(await modeOf(path.join(f.dest, 'MyGame/Game.x86_64'))).toBe(0o755);
      expect(await readFile(path.join(f.dest, 'MyGame/Game_Data/level0'), 'utf8')).toBe('level');
    });

    it('uses an explicit executable_path', async () => {
      const zip = await yazlZip([
        { name: 'server', data: 'not me' },
        { name: 'bin/run', data: 'me', mode: 0o100644 },
      ]);

      const result = await unpack(zip, { executablePath: 'bin/run' });

      expect(result).toEqual({ executablePath: 'bin/run', sizeBytes: 8, fileCount: 2 });
      expect(await modeOf(path.join(f.dest, 'bin/run'))).toBe(0o755);
    });

    it('reads stored and deflated entries, and Windows backslash names', async () => {
      const zip = rawZip([
        { name: 'start.sh', data: Buffer.from('#!/bin/sh\n'), mode: 0o100755 },
        { name: 'Game_Data\\level0', data: Buffer.from('level '.repeat(1000)), method: 'deflate' },
      ]);

      const result = await unpack(zip);

      expect(result).toEqual({ executablePath: 'start.sh', sizeBytes: 10 + 6000, fileCount: 2 });
      expect(await readFile(path.join(f.dest, 'Game_Data/level0'), 'utf8')).toBe('level '.repeat(1000));
    });

    it('lets a small, highly compressible build through the ratio check', async () => {
      const text = 'the same log line again\n'.repeat(40_000); // ~0.9 MiB, compresses > 100x
      const zip = rawZip([
        { name: 'server', data: Buffer.from('bin') },
        { name: 'notes.txt', data: Buffer.from(text), method: 'deflate' },
      ]);
      expect(text.length / zip.length).toBeGreaterThan(100);

      await expect(unpack(zip)).resolves.toMatchObject({ fileCount: 2 });
    });
  });

  describe('rejected uploads', () => {
    it('has no executable', async () => {
      const zip = await yazlZip([{ name: 'README.md', data: 'hi' }, { name: 'data/x', data: 'x' }]);
      await expectRejected(zip, /no executable found at the top level.*"server" or "start\.sh"/);
    });

    it('lacks the explicit executable_path', async () => {
      const zip = await yazlZip([{ name: 'server', data: 'x' }]);
      await expectRejected(zip, 'executable_path "bin/nope" not found in archive', { executablePath: 'bin/nope' });
    });

    it('escapes the root with ../ (zip slip), writing nothing outside', async () => {
      const zip = rawZip([
        { name: 'server', data: Buffer.from('ok') },
        { name: '../../evil.txt', data: Buffer.from('pwned') },
        { name: 'data/../../../../evil.txt', data: Buffer.from('pwned') },
      ]);

      await expectRejected(zip, 'contains a ".." path segment');

      for (let dir = f.dest; dir !== path.dirname(dir); dir = path.dirname(dir)) {
        expect(existsSync(path.join(dir, 'evil.txt'))).toBe(false);
      }
      expect(existsSync(path.join(f.work, 'builds', 'evil.txt'))).toBe(false);
    });

    it('has an absolute path', async () => {
      const outside = path.join(tmpdir(), `process-zip-evil-${randomBytes(6).toString('hex')}`);
      const zip = rawZip([{ name: 'server', data: Buffer.from('ok') }, { name: outside, data: Buffer.from('pwned') }]);

      await expectRejected(zip, 'absolute path');
      expect(existsSync(outside)).toBe(false);
    });

    it.each(['..\\evil.txt', 'data\\..\\..\\evil.txt', '\\evil.txt', 'C:\\evil.txt', 'C:/evil.txt'])(
      'has the Windows-style path %j',
      async (name) => {
        const zip = rawZip([{ name: 'server', data: Buffer.from('ok') }, { name, data: Buffer.from('pwned') }]);
        await expectRejected(zip, 'unsafe entry name');
      },
    );

    it.each(['/etc/passwd', '../../x', 'data/inside-the-build'])('has a symlink to %j', async (target) => {
      const zip = rawZip([
        { name: 'server', data: Buffer.from('ok') },
        { name: 'link', data: Buffer.from(target), mode: 0o120777 },
      ]);
      await expectRejected(zip, 'entry "link" is a symbolic link');
    });

    it.each([
      ['a FIFO', 0o010644],
      ['a character device', 0o020666],
    ])('has %s', async (_, mode) => {
      const zip = rawZip([{ name: 'server', data: Buffer.from('ok') }, { name: 'dev', mode }]);
      await expectRejected(zip, 'entry "dev" is a device, FIFO or socket');
    });

    it('has duplicate names', async () => {
      const zip = rawZip([
        { name: 'server', data: Buffer.from('one') },
        { name: 'server', data: Buffer.from('two') },
      ]);
      await expectRejected(zip, 'duplicate entry "server"');
    });

    it('has too many entries', async () => {
      const zip = await yazlZip(['server', 'a', 'b', 'c', 'd'].map((name) => ({ name, data: name })));
      await expectRejected(zip, 'archive has 5 entries, more than the limit of 4', { limits: { maxEntries: 4 } });
    });

    it('has an encrypted entry', async () => {
      const zip = rawZip([{ name: 'server', data: Buffer.from('ok'), method: 'deflate', flags: 0x1 }]);
      await expectRejected(zip, 'entry "server" is encrypted');
    });

    it.each<[string, () => Promise<Buffer>]>([
      ['random bytes', async () => randomBytes(4096)],
      ['a text file', async () => Buffer.from('#!/bin/sh\necho this is not a zip\n')],
      ['an empty file', async () => Buffer.alloc(0)],
      ['a truncated zip', async () => (await yazlZip([{ name: 'server', data: randomBytes(5000) }])).subarray(0, 3000)],
    ])('is not a ZIP: %s', async (_, makeZip) => {
      await expectRejected(await makeZip(), /^not a valid ZIP archive: /);
    });

    it('has corrupt compressed data', async () => {
      const zip = rawZip([{ name: 'server', deflated: randomBytes(200), declaredSize: 1000 }]);
      await expectRejected(zip, /^not a valid ZIP archive: entry "server": /);
    });

    it('has a wrong CRC-32', async () => {
      const zip = rawZip([{ name: 'server', data: Buffer.from('ok'), crc: 12345 }]);
      await expectRejected(zip, 'not a valid ZIP archive: entry "server": CRC-32 mismatch');
    });
  });
});
