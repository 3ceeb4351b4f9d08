import { crc32 } from 'node:zlib';
import { BuildRejected } from './build-rejected';
import { ByteBudget, guardEntryData } from './entry-data-guard';
import { DEFAULT_ZIP_LIMITS } from './zip-limits';

const chunks = (...sizes: number[]) => sizes.map((n, i) => Buffer.alloc(n, i + 1));
const crcOf = (parts: Buffer[]) => crc32(Buffer.concat(parts));
async function* stream(parts: Buffer[]) {
  yield* parts;
}

/** Runs the guard like the write stream would, returning what got through and how it ended. */
async function drain(parts: Buffer[], entry: { size: number; crc32: number }, budget = new ByteBudget(DEFAULT_ZIP_LIMITS)) {
  const passed: Buffer[] = [];
  try {
    for await (const chunk of guardEntryData(stream(parts), { path: 'x', ...entry }, budget)) passed.push(chunk);
    return { passed, error: undefined };
  } catch (error) {
    return { passed, error: error as Error };
  }
}

describe('guardEntryData', () => {
  it('passes data through when it matches its header', async () => {
    const parts = chunks(3, 4);
    const budget = new ByteBudget(DEFAULT_ZIP_LIMITS);
    const { passed, error } = await drain(parts, { size: 7, crc32: crcOf(parts) }, budget);
    expect(error).toBeUndefined();
    expect(Buffer.concat(passed).equals(Buffer.concat(parts))).toBe(true);
    expect(budget.spent).toBe(7);
  });

  it('stops before the chunk that goes past the declared size', async () => {
    const parts = chunks(4, 4, 4);
    const { passed, error } = await drain(parts, { size: 6, crc32: crcOf(parts) });
    expect(error).toEqual(new BuildRejected('entry "x" holds more data than its header declares; the archive is corrupt or malicious'));
    expect(passed).toHaveLength(1);
  });

  it('stops once the archive as a whole goes past the size limit', async () => {
    const budget = new ByteBudget({ ...DEFAULT_ZIP_LIMITS, maxUncompressedBytes: 10 });
    const first = chunks(6);
    expect((await drain(first, { size: 6, crc32: crcOf(first) }, budget)).error).toBeUndefined();
    const second = chunks(3, 3);
    const { passed, error } = await drain(second, { size: 6, crc32: crcOf(second) }, budget);
    expect(error).toBeInstanceOf(BuildRejected);
    expect(error?.message).toMatch('archive unpacks to more than');
    expect(passed).toHaveLength(1);
  });

  it('rejects a CRC-32 mismatch', async () => {
    const { error } = await drain(chunks(5), { size: 5, crc32: 42 });
    expect(error).toEqual(new BuildRejected('not a valid ZIP archive: entry "x": CRC-32 mismatch'));
  });
});
