// A build's log lines from its events (build-log.ts).
import type { BuildEvent } from '@spawnpoint/domain';
import { buildLogLines } from './build-log';

const t0 = '2026-11-21T10:00:00.000Z';
const t1 = '2026-11-21T10:00:01.000Z';
const t2 = '2026-11-21T10:00:02.000Z';

describe('buildLogLines', () => {
  it('given an upload requested and received, says so with the version, expiry, executable_path and size', () => {
    const requested: BuildEvent = {
      type: 'BuildUploadRequested',
      data: { buildId: 'b', projectId: 'p', name: 'game', version: 3, tokenHash: 'h', expiresAt: '2026-11-21T11:00:00.000Z', executablePath: 'bin/run', at: t0 },
    };
    expect(buildLogLines(requested)).toEqual([
      { at: t0, level: 'info', message: 'upload URL issued for version 3 of "game", valid until 2026-11-21T11:00:00.000Z; executable_path bin/run' },
    ]);
    expect(buildLogLines({ type: 'BuildUploadReceived', data: { buildId: 'b', sizeBytes: 1234, uploadPath: 'upload/x', at: t1 } }))
      .toEqual([{ at: t1, level: 'info', message: 'ZIP received (1234 bytes); processing started' }]);
  });

  it('given a ready build, lists what processing did, then the outcome', () => {
    const log = [{ at: t1, level: 'info' as const, message: 'checks passed' }, { at: t1, level: 'info' as const, message: 'executable: server (a file named "server")' }];
    expect(buildLogLines({ type: 'BuildReady', data: { buildId: 'b', executablePath: 'server', sizeBytes: 99, at: t2, log } })).toEqual([
      ...log, { at: t2, level: 'info', message: 'ready: executable server, 99 bytes unpacked' },
    ]);
  });

  it('given a failed build (or one stored before build logs), ends with the reason at level error', () => {
    expect(buildLogLines({ type: 'BuildFailed', data: { buildId: 'b', error: 'not a valid ZIP archive: bad', at: t2 } }))
      .toEqual([{ at: t2, level: 'error', message: 'failed: not a valid ZIP archive: bad' }]);
    const log = [{ at: t1, level: 'warn' as const, message: 'processing resumed' }];
    expect(buildLogLines({ type: 'BuildFailed', data: { buildId: 'b', error: 'x', at: t2, log } })).toHaveLength(2);
  });

  it('given a container image, says it is ready at once; a deletion adds nothing', () => {
    expect(buildLogLines({ type: 'BuildImageRegistered', data: { buildId: 'b', projectId: 'p', name: 'game', version: 1, image: 'ghcr.io/s/g:1', at: t0 } }))
      .toEqual([{ at: t0, level: 'info', message: 'container image ghcr.io/s/g:1 registered as version 1 of "game"; nothing to process: ready' }]);
    expect(buildLogLines({ type: 'BuildDeleted', data: { buildId: 'b', projectId: 'p', name: 'game', version: 1, at: t0 } })).toEqual([]);
  });
});
