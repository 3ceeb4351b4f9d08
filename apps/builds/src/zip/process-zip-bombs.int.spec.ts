// processZip against hostile archives: zip bombs (declared sizes that lie, ratios past the limit) are
// refused quickly, and file system errors pass through as they are.
import * as path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { BuildRejected, processZip, type ZipLimits } from './process-zip';
import { rawZip, type RawEntry } from './testing/raw-zip';
import { MiB, zipFixture } from './testing/zip-fixture';

describe('processZip: zip bombs', () => {
  const f = zipFixture();
  const { expectRejected } = f;

  describe('zip bombs', () => {
    // 200 MiB of zeros deflates to ~200 KiB: a ratio of about 1000.
    let zeros: Buffer;
    beforeAll(() => {
      zeros = deflateRawSync(Buffer.alloc(200 * MiB));
    });

    const bomb = (declaredSize: number): RawEntry[] => [
      { name: 'server', data: Buffer.from('ok') },
      { name: 'zeros.bin', deflated: zeros, declaredSize },
    ];

    async function expectRejectedQuickly(zip: Buffer, message: string | RegExp, limits: Partial<ZipLimits>) {
      const started = Date.now();
      await expectRejected(zip, message, { limits });
      expect(Date.now() - started).toBeLessThan(5000);
    }

    it('declares more than maxUncompressedBytes', async () => {
      await expectRejectedQuickly(rawZip(bomb(200 * MiB)), 'archive unpacks to more than 50 MiB', {
        maxUncompressedBytes: 50 * MiB,
      });
    });

    it('declares an honest size but a ratio above maxRatio', async () => {
      await expectRejectedQuickly(rawZip(bomb(200 * MiB)), /archive expands \d+ times \(limit 100\)/, {});
    });

    it.each([
      ['a tiny size, skipping the ratio check', 1000, {}],
      ['a size within every limit', 40 * MiB, { maxUncompressedBytes: 50 * MiB, maxRatio: 1_000_000 }],
    ])('inflates to more than its header declares: %s', async (_, declaredSize, limits) => {
      await expectRejectedQuickly(rawZip(bomb(declaredSize)), /not a valid ZIP archive|more data than its header declares/, limits);
    });
  });

  it('lets file system errors through as they are, not as a rejected build', async () => {
    const missing = processZip(path.join(f.work, 'uploads', 'missing.zip'), f.dest);
    await expect(missing).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(missing).rejects.not.toBeInstanceOf(BuildRejected);
  });
});
