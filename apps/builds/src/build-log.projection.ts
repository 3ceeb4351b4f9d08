// The build_log_lines read model: each build event's lines (build-log.ts), keyed by the event's revision
// and the line's place in it, so applying an event again changes nothing. Its own projection (and
// checkpoint), so on its first start it derives the logs of every build already stored.
import type { BuildEvent } from '@spawnpoint/domain';
import type { RecordedEvent } from '@spawnpoint/eventstore';
import type { Projection, Tx } from '@spawnpoint/platform';
import { buildLogLines } from './build-log';

export const buildLogProjection: Projection = {
  name: 'build-logs',
  categories: ['build'],
  async apply(recorded: RecordedEvent, tx: Tx) {
    const event = { type: recorded.type, data: recorded.data } as BuildEvent;
    if (event.type === 'BuildDeleted') {
      await tx.buildLogLine.deleteMany({ where: { buildId: event.data.buildId } });
      return;
    }
    const lines = buildLogLines(event);
    if (lines.length === 0) return;
    await tx.buildLogLine.createMany({
      data: lines.map((l, i) => ({ buildId: event.data.buildId, revision: recorded.revision, line: i, at: new Date(l.at), level: l.level, message: l.message })),
      skipDuplicates: true,
    });
  },
};
