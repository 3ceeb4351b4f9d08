// Where a match plays, and the `equal` rule (decisions.md "Matchmaking", decided details). Without a
// latency rule only lobbies of one region match, and that is the region. With one, the candidates are the
// regions where every player's state.ping[region] is at most maxMs (a player without pings accepts only
// the lobby's own region); then `vote` (each lobby's region weighted by its players, ties by the lowest
// mean ping) or `host` (the oldest lobby's region when it qualifies, else the vote).
import { MatchmakingMode } from './mode';

export interface RegionLobby {
  region: string;
  /** ISO time the lobby queued: the oldest is the host for `regions: host`. */
  queuedAt: string;
  players: { state: Record<string, unknown> }[];
}

const pings = (state: Record<string, unknown>): Record<string, number> | null => {
  const p = state.ping;
  if (typeof p !== 'object' || p === null || Array.isArray(p)) return null;
  const out: Record<string, number> = {};
  for (const [r, v] of Object.entries(p)) if (typeof v === 'number' && Number.isFinite(v)) out[r] = v;
  return Object.keys(out).length ? out : null;
};

/** The regions this lobby can play in under the mode. */
export function lobbyRegions(mode: MatchmakingMode, lobby: RegionLobby): string[] {
  const latency = mode.rules.find((r) => r.type === 'latency');
  if (!latency || latency.type !== 'latency') return [lobby.region];
  let allowed: Set<string> | null = null;
  for (const player of lobby.players) {
    const p = pings(player.state);
    const mine = p ? Object.keys(p).filter((r) => p[r] <= latency.maxMs) : [lobby.region];
    allowed = allowed === null ? new Set(mine) : new Set(mine.filter((r) => allowed!.has(r)));
  }
  return [...(allowed ?? new Set([lobby.region]))].sort();
}

function meanPing(lobbies: RegionLobby[], region: string): number {
  let sum = 0;
  let n = 0;
  for (const l of lobbies) {
    for (const pl of l.players) {
      const p = pings(pl.state);
      if (p && p[region] !== undefined) {
        sum += p[region];
        n++;
      }
    }
  }
  return n ? sum / n : Number.POSITIVE_INFINITY;
}

/** The match's region, or null when the lobbies have none in common (blockedBy `no_common_region`). */
export function chooseRegion(mode: MatchmakingMode, lobbies: RegionLobby[]): string | null {
  if (lobbies.length === 0) return null;
  let common: string[] | null = null;
  for (const l of lobbies) {
    const mine = lobbyRegions(mode, l);
    common = common === null ? mine : common.filter((r) => mine.includes(r));
  }
  if (!common || common.length === 0) return null;
  if (mode.regions === 'host') {
    const host = [...lobbies].sort((a, b) => a.queuedAt.localeCompare(b.queuedAt))[0];
    if (common.includes(host.region)) return host.region;
  }
  const votes = new Map<string, number>();
  for (const l of lobbies) votes.set(l.region, (votes.get(l.region) ?? 0) + l.players.length);
  return [...common].sort((a, b) => (votes.get(b) ?? 0) - (votes.get(a) ?? 0) || meanPing(lobbies, a) - meanPing(lobbies, b) || a.localeCompare(b))[0];
}

/** Every `equal` rule holds: all players of the match have the same value of its field (missing counts as a value). */
export function equalRulesHold(mode: MatchmakingMode, players: { state: Record<string, unknown> }[]): boolean {
  return mode.rules.every((r) => r.type !== 'equal' || new Set(players.map((p) => JSON.stringify(p.state[r.field] ?? null))).size <= 1);
}
