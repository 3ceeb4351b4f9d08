// The gateway's scrape-time gauge: the lobby event streams it holds open.
import type { GaugeDefinition } from '@spawnpoint/platform';

/** Open lobby event streams (server-sent events) of this gateway. */
export function lobbyStreamGauges(open: () => number): GaugeDefinition[] {
  return [
    { name: 'spawnpoint_lobby_event_streams', help: 'Lobby event streams open on this gateway', labelNames: [], source: async () => [{ labels: {}, value: open() }] },
  ];
}
