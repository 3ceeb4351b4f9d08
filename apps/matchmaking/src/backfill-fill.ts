// Engine-managed backfill (decisions.md "Backfill"): which queued lobby fills a game's freed slots. A game
// may take one when its mode allows backfill, the window is open (its server's start + backfillWindow, or
// the deadline of the game's last opening override) and the game has not locked it; the lobby plays in the
// game's region, fits the free slots of a team, and its rating lies in the game's skill band (when set),
// else within its own window of the game's mean rating. The oldest such lobby first.
import { allowedDifference, DifferenceRule, lobbyRating, MatchLobby, MatchmakingMode, Ticket } from '@spawnpoint/domain';
import { OpenGame } from './open-matches';

export function fillOpen(game: OpenGame, mode: MatchmakingMode, nowMs: number): boolean {
  // A freed slot is a player count, not a role: role modes are not filled by the engine (yet).
  if (!mode.allowBackfill || mode.roles) return false;
  if (game.override && !game.override.accepting) return false;
  const deadline = game.override?.deadline ?? new Date(Date.parse(game.startedAt) + mode.backfillWindow * 1000).toISOString();
  return nowMs <= Date.parse(deadline);
}

export function fillCandidate(game: OpenGame & { free: number[] }, mode: MatchmakingMode, tickets: Iterable<Ticket>, nowMs: number): { lobby: MatchLobby; team: number } | null {
  const rule = mode.rules.find((r): r is DifferenceRule => r.type === 'difference') ?? null;
  const band = game.override?.skillBand ?? null;
  const present = game.match.lobbies.filter((l) => !('left' in game.match) || !game.match.left.includes(l.lobbyId));
  const mean = present.length ? present.reduce((s, l) => s + l.rating, 0) / present.length : 0;
  let best: { lobby: MatchLobby; team: number } | null = null;
  for (const t of tickets) {
    if (t.region !== game.match.region) continue;
    const team = game.free.findIndex((n) => n >= t.players.length);
    if (team < 0) continue;
    if (band && !inBand(lobbyRating(t.players, band.field), band)) continue;
    const rating = rule ? lobbyRating(t.players, rule.field) : 0;
    if (!band && rule && Math.abs(rating - mean) > allowedDifference(rule, Math.max(0, nowMs - Date.parse(t.queuedAt)))) continue;
    if (best && best.lobby.queuedAt <= t.queuedAt) continue;
    best = { lobby: { lobbyId: t.lobbyId, ticket: t.ticket, players: t.players.map((p) => p.id), rating, queuedAt: t.queuedAt }, team };
  }
  return best;
}

const inBand = (rating: number, band: { min: number; max: number }) => rating >= band.min && rating <= band.max;
