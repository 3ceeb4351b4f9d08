// An uploaded build ZIP streamed into a blob in PostgreSQL (ADR-0013), so the builds service needs no disk
// shared with this replica: the PUT of an upload URL and the v2 multipart upload both land here.
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { RemoteError } from '@spawnpoint/messaging';
import type { BlobStore } from '@spawnpoint/platform';
import { UPLOAD_BLOB_PREFIX } from '@spawnpoint/proto';

export const MAX_UPLOAD_BYTES = 2 * 1024 ** 3;

export interface StoredUpload { blobKey: string; sizeBytes: number }

/**
 * Streams `source` into a new upload blob, counting the bytes: over 2 GiB is 413, no data for `idleMs` is
 * 408 (a client that stops sending without closing would hold the connection and the partial blob for
 * good). A failed upload (client gone, stalled, too large) leaves no blob behind: put removes what it wrote.
 * The builds service takes ownership of the blob (and removes it) once told of it.
 */
export async function storeUpload(blobs: BlobStore, source: Readable, idleMs: number): Promise<StoredUpload> {
  const blobKey = `${UPLOAD_BLOB_PREFIX}${randomUUID()}`;
  let size = 0;
  const idle = setTimeout(() => source.destroy(new RemoteError({ error: `Upload stalled: no data for ${idleMs / 1000} s`, status: 408 })), idleMs);
  async function* limited(): AsyncGenerator<Buffer> {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      idle.refresh();
      size += chunk.length;
      if (size > MAX_UPLOAD_BYTES) throw new RemoteError({ error: 'Upload exceeds 2 GiB', status: 413 });
      yield chunk;
    }
  }
  try {
    await blobs.put(blobKey, limited());
  } finally {
    clearTimeout(idle);
  }
  return { blobKey, sizeBytes: size };
}
