import { crc32 } from 'node:zlib';
import { BuildRejected } from './build-rejected';
import { sizeLimitExceeded, type ZipLimits } from './zip-limits';

/** Bytes actually written for the whole archive, whatever the headers said. */
export class ByteBudget {
  spent = 0;

  constructor(private readonly limits: ZipLimits) {}

  spend(bytes: number): void {
    this.spent += bytes;
    if (this.spent > this.limits.maxUncompressedBytes) throw sizeLimitExceeded(this.limits);
  }
}

/**
 * Passes an entry's inflated data through, throwing before yielding a chunk that would take it
 * past its declared size or the archive past its budget, so headers that lie (zip bombs) cannot
 * make us write more than we agreed to. Checks the CRC-32 at the end.
 */
export async function* guardEntryData(
  chunks: AsyncIterable<Buffer>,
  entry: { path: string; size: number; crc32: number },
  budget: ByteBudget,
): AsyncGenerator<Buffer> {
  let seen = 0;
  let crc = 0;
  for await (const chunk of chunks) {
    seen += chunk.length;
    if (seen > entry.size) {
      throw new BuildRejected(
        `entry "${entry.path}" holds more data than its header declares; the archive is corrupt or malicious`,
      );
    }
    budget.spend(chunk.length);
    crc = crc32(chunk, crc);
    yield chunk;
  }
  if (crc !== entry.crc32) throw new BuildRejected(`not a valid ZIP archive: entry "${entry.path}": CRC-32 mismatch`);
}
