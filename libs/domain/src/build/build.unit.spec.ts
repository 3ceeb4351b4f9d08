import { given } from '../kit/testing';
import { buildDecider, BuildEvent, buildSeriesDecider, UPLOAD_EXPIRED } from '.';

const t0 = '2026-11-21T10:00:00.000Z';
const t1 = '2026-11-21T10:05:00.000Z';
const late = '2026-11-21T11:00:00.001Z';
const requested: BuildEvent = {
  type: 'BuildUploadRequested',
  data: { buildId: 'b1', projectId: 'p', name: 'game', version: 1, tokenHash: 'th', expiresAt: '2026-11-21T11:00:00.000Z', executablePath: null, at: t0 },
};
const received: BuildEvent = { type: 'BuildUploadReceived', data: { buildId: 'b1', sizeBytes: 1234, uploadPath: '/u/1.zip', at: t1 } };
const ready: BuildEvent = { type: 'BuildReady', data: { buildId: 'b1', executablePath: 'server', sizeBytes: 4000, at: t1 } };

describe('Build', () => {
  it('starts uploading when an upload URL is requested', () => {
    const s = given(buildDecider).when({ type: 'RequestUpload', buildId: 'b1', projectId: 'p', name: 'game', version: 1, tokenHash: 'th', expiresAt: '2026-11-21T11:00:00.000Z', executablePath: null, now: t0 })
      .then([requested]);
    expect(s.status).toBe('uploading');
  });

  it('moves to processing when the ZIP arrives with the right token', () => {
    const s = given(buildDecider, [requested]).when({ type: 'ReceiveUpload', tokenHash: 'th', sizeBytes: 1234, uploadPath: '/u/1.zip', now: t1 }).then([received]);
    expect(s.status).toBe('processing');
  });

  it('refuses a wrong, reused or expired upload token (403)', () => {
    given(buildDecider, [requested]).when({ type: 'ReceiveUpload', tokenHash: 'other', sizeBytes: 1, uploadPath: '/u/x.zip', now: t1 }).thenError('forbidden');
    given(buildDecider, [requested, received]).when({ type: 'ReceiveUpload', tokenHash: 'th', sizeBytes: 1, uploadPath: '/u/x.zip', now: t1 }).thenError('forbidden', /already used/);
    given(buildDecider, [requested]).when({ type: 'ReceiveUpload', tokenHash: 'th', sizeBytes: 1, uploadPath: '/u/x.zip', now: late }).thenError('forbidden', /expired/);
  });

  it('becomes ready or failed after processing', () => {
    expect(given(buildDecider, [requested, received]).when({ type: 'CompleteProcessing', executablePath: 'server', sizeBytes: 4000, now: t1 }).then([ready]).status).toBe('ready');
    given(buildDecider, [requested, received]).when({ type: 'FailProcessing', error: 'not a valid ZIP archive', now: t1 })
      .then([{ type: 'BuildFailed', data: { buildId: 'b1', error: 'not a valid ZIP archive', at: t1 } }]);
  });

  it('carries what processing did onto the ready or failed event (an empty log adds nothing)', () => {
    const log = [{ at: t0, level: 'info' as const, message: 'checks passed' }, { at: t1, level: 'info' as const, message: 'executable: server' }];
    given(buildDecider, [requested, received]).when({ type: 'CompleteProcessing', executablePath: 'server', sizeBytes: 4000, log, now: t1 })
      .then([{ type: 'BuildReady', data: { ...ready.data, log } }]);
    const failLog = [{ at: t1, level: 'info' as const, message: 'checking the archive' }];
    given(buildDecider, [requested, received]).when({ type: 'FailProcessing', error: 'not a valid ZIP archive', log: failLog, now: t1 })
      .then([{ type: 'BuildFailed', data: { buildId: 'b1', error: 'not a valid ZIP archive', at: t1, log: failLog } }]);
    given(buildDecider, [requested, received]).when({ type: 'CompleteProcessing', executablePath: 'server', sizeBytes: 4000, log: [], now: t1 }).then([ready]);
  });

  it('fails an upload whose URL expired with no ZIP; before expiry, or once the ZIP arrived, nothing happens', () => {
    const s = given(buildDecider, [requested]).when({ type: 'ExpireUpload', now: late })
      .then([{ type: 'BuildFailed', data: { buildId: 'b1', error: UPLOAD_EXPIRED, at: late } }]);
    expect(s.status).toBe('failed');
    given(buildDecider, [requested]).when({ type: 'ExpireUpload', now: t1 }).then([]);
    given(buildDecider, [requested, received]).when({ type: 'ExpireUpload', now: late }).then([]);
    given(buildDecider, [requested, received, ready]).when({ type: 'ExpireUpload', now: late }).then([]);
    given(buildDecider).when({ type: 'ExpireUpload', now: late }).then([]);
  });

  it('only finishes processing from processing', () => {
    given(buildDecider, [requested]).when({ type: 'CompleteProcessing', executablePath: 's', sizeBytes: 1, uploadPath: '/u/x.zip', now: t1 }).thenError('conflict');
    given(buildDecider, [requested, received, ready]).when({ type: 'FailProcessing', error: 'x', now: t1 }).thenError('conflict');
  });

  it('registers a container image build as ready at once', () => {
    const s = given(buildDecider).when({ type: 'RegisterImage', buildId: 'b2', projectId: 'p', name: 'game', version: 2, image: 'ghcr.io/x/game:1', now: t0 })
      .then([{ type: 'BuildImageRegistered', data: { buildId: 'b2', projectId: 'p', name: 'game', version: 2, image: 'ghcr.io/x/game:1', at: t0 } }]);
    expect(s).toMatchObject({ status: 'ready', kind: 'image' });
  });

  it('is deleted unless an active server uses it; deleting twice is 404', () => {
    given(buildDecider, [requested, received, ready]).when({ type: 'DeleteBuild', inUse: true, now: t1 }).thenError('conflict');
    const deleted: BuildEvent = { type: 'BuildDeleted', data: { buildId: 'b1', projectId: 'p', name: 'game', version: 1, at: t1 } };
    given(buildDecider, [requested, received, ready]).when({ type: 'DeleteBuild', inUse: false, now: t1 }).then([deleted]);
    given(buildDecider, [requested, received, ready, deleted]).when({ type: 'DeleteBuild', inUse: false, now: t1 }).thenError('not_found');
    given(buildDecider).when({ type: 'DeleteBuild', inUse: false, now: t1 }).thenError('not_found');
  });
});

describe('Build series', () => {
  it('hands out consecutive versions per name', () => {
    const first = { type: 'BuildVersionAllocated' as const, data: { projectId: 'p', name: 'game', buildId: 'b1', version: 1, at: t0 } };
    given(buildSeriesDecider).when({ type: 'AllocateVersion', projectId: 'p', name: 'game', buildId: 'b1', now: t0 }).then([first]);
    given(buildSeriesDecider, [first]).when({ type: 'AllocateVersion', projectId: 'p', name: 'game', buildId: 'b2', now: t1 })
      .then([{ type: 'BuildVersionAllocated', data: { projectId: 'p', name: 'game', buildId: 'b2', version: 2, at: t1 } }]);
  });
});
