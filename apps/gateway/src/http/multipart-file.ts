// The one file of a multipart/form-data upload (the v2 direct build upload), as a stream: the body is
// parsed as it arrives, never buffered. Uploads are hostile, so the form is held to one file part under
// the expected name, a few small fields, bounded part headers, and the whole body to the upload limit.
import { Busboy } from '@fastify/busboy';
import { Readable, Transform } from 'node:stream';
import { RemoteError } from '@spawnpoint/messaging';
import { MAX_UPLOAD_BYTES } from './upload-blob';
import { validationError } from './validation';

/** What a form may add around its file: part headers, boundaries and a few small fields. */
const FORM_OVERHEAD_BYTES = 1024 * 1024;

export interface MultipartFile {
  /** The file's bytes (refused with the error when the rest of the form turns out bad). */
  file: Readable;
  /** Settles once the whole body is parsed: rejects on a second file, too many parts or a malformed body. */
  finished: Promise<void>;
}

const missingFile = (field: string) => validationError([{ loc: ['body', field], msg: 'Field required', type: 'missing' }]);
const malformed = (why: string) => new RemoteError({ error: `Malformed multipart body: ${why}`, status: 400 });
const tooLarge = () => new RemoteError({ error: 'Upload exceeds 2 GiB', status: 413 });

/**
 * Resolves with the file part named `field` (the first file part of the form; any other name is refused),
 * or rejects: no such part (422 missing), a body that is not multipart/form-data with a boundary (422 missing,
 * as a form without the file), a malformed body (400). `contentType` is the request's Content-Type header.
 */
export function multipartFile(body: Readable, contentType: string | undefined, field: string): Promise<MultipartFile> {
  return new Promise<MultipartFile>((resolve, reject) => {
    let bb: InstanceType<typeof Busboy>;
    try {
      if (!contentType || !/^multipart\/form-data\s*;/i.test(contentType)) throw missingFile(field);
      bb = new Busboy({
        headers: { 'content-type': contentType },
        limits: { files: 1, fields: 16, parts: 17, fieldNameSize: 100, fieldSize: 64 * 1024, headerPairs: 32, headerSize: 16 * 1024, fileSize: MAX_UPLOAD_BYTES + 1 },
      });
    } catch (err) {
      body.resume(); // nothing is read: let the request end
      reject(err instanceof RemoteError ? err : missingFile(field));
      return;
    }

    let file: Readable | null = null;
    let settleFinished: (err?: Error) => void = () => undefined;
    const finished = new Promise<void>((res, rej) => { settleFinished = (err) => (err ? rej(err) : res()); });
    finished.catch(() => undefined); // a caller that failed earlier never awaits it
    let failed = false;
    const fail = (err: Error) => {
      if (failed) return;
      failed = true;
      // Stop parsing; the rest of the body is read and dropped (a 413 closes the connection after a while).
      body.unpipe();
      body.resume();
      if (file) {
        if (!file.readableEnded) file.destroy(err);
        settleFinished(err);
      } else {
        reject(err);
      }
    };

    bb.on('file', (name: string, stream: Readable) => {
      if (name !== field) {
        stream.resume();
        fail(missingFile(field));
        return;
      }
      file = stream;
      // Its reader sees an error through its own iteration; one after that (busboy reports a broken part on
      // the part's stream too) must not go unheard, which would end the process.
      stream.on('error', () => undefined);
      stream.once('limit', () => fail(tooLarge()));
      // The reader gave up on the file (stalled, failed to store): stop parsing the rest.
      stream.once('close', () => { if (!stream.readableEnded) fail(malformed('upload abandoned')); });
      resolve({ file: stream, finished });
    });
    bb.on('filesLimit', () => fail(validationError([{ loc: ['body', field], msg: 'Exactly one file may be uploaded', type: 'too_many_files' }])));
    bb.on('partsLimit', () => fail(malformed('too many parts')));
    bb.on('fieldsLimit', () => fail(malformed('too many fields')));
    bb.on('error', (err: Error) => fail(malformed(err.message)));
    bb.on('finish', () => {
      if (failed) return;
      if (!file) fail(missingFile(field));
      else settleFinished();
    });

    let total = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _enc, done) {
        total += chunk.length;
        done(total > MAX_UPLOAD_BYTES + FORM_OVERHEAD_BYTES ? tooLarge() : null, chunk);
      },
    });
    // pipe, not pipeline: a refusal must leave the request open for its answer (pipeline would destroy it).
    body.once('error', (err) => fail(err));
    counted.once('error', (err) => fail(err instanceof RemoteError ? err : malformed(err.message)));
    body.pipe(counted).pipe(bb);
  });
}
