// NatsBus connections on a stream of their own, so test runs never collide on the shared server.
import { randomBytes } from 'node:crypto';
import { connect } from 'nats';
import { NatsBus, type NatsBusOptions } from '../nats/nats-bus';

export interface NatsTestStream {
  options: NatsBusOptions;
  connect(name: string): Promise<NatsBus>;
  /** Deletes the stream and with it every consumer created on it. */
  delete(): Promise<void>;
}

export function natsTestStream(servers: string): NatsTestStream {
  const suffix = randomBytes(4).toString('hex');
  const options = { servers, streamName: `TEST_EVENTS_${suffix}`, eventSubjectPrefix: `test_events_${suffix}` };
  return {
    options,
    connect: (name) => NatsBus.connect({ ...options, name }),
    async delete() {
      const nc = await connect({ servers });
      try {
        const jsm = await nc.jetstreamManager();
        await jsm.streams.delete(options.streamName).catch(() => undefined);
        // The object store of its large events (ADR-0019), when a test made one.
        await jsm.streams.delete(`OBJ_${options.streamName}_BODIES`).catch(() => undefined);
      } finally {
        await nc.close();
      }
    },
  };
}
