// The end of a lobby update's trace: the lobbies service broadcasts it inside the request's trace, this
// gateway's listener runs in the delivery's CONSUMER span (the bus carries the context), and each write to
// an open event stream is a span of its own under it. Outside a sampled trace: just the write.
import { SpanKind, trace } from '@opentelemetry/api';

// Looked up per use: a cached tracer would keep pointing at a provider registered earlier.
const tracer = () => trace.getTracer('spawnpoint.gateway');

export function writeInSpan(stream: { lobbyId: string; playerId: string }, revision: number, event: string, bytes: number, write: () => void): void {
  if (!trace.getActiveSpan()?.isRecording()) return write();
  const span = tracer().startSpan('lobby stream write', {
    kind: SpanKind.INTERNAL,
    attributes: { 'spawnpoint.lobby_id': stream.lobbyId, 'spawnpoint.player_id': stream.playerId, 'spawnpoint.revision': revision, 'spawnpoint.sse.event': event, 'spawnpoint.sse.bytes': bytes },
  });
  try {
    write();
  } finally {
    span.end();
  }
}
