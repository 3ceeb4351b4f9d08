// Engine-managed backfill (decisions.md "Backfill"): which queued lobby fills a game's freed slots. A game
// may take one when its mode allows backfill, the window is open (its server's start + backfillWindow, or
// the deadline of the game's last opening override) and the game has not locked it; the lobby plays in the
// game's region, fits the free slots of a team, and its rating lies in the game's skill band (when set),
// else within its own window of the game's mean rating. The oldest such lobby first. In a role mode a freed
// slot is a role: the lobby's players' roles must fit the roles a team lacks now (decisions.md: a freed role
// slot is filled by a queued lobby of that role), from the roles the match recorded for its players.
import { allowedDifference, DifferenceRule, lobbyRating, MatchLobby, MatchmakingMode, roleOf, RoleTable, roleTable, roleVector, Ticket } from '@spawnpoint/domain';
import { OpenGame } from './open-matches';

export function fillOpen(game: OpenGame, mode: MatchmakingMode, nowMs: number): boolean {
  if (!mode.allowBackfill) return false;
  if (game.override && !game.override.accepting) return false;
  const deadline = game.override?.deadline ?? new Date(Date.parse(game.startedAt) + mode.backfillWindow * 1000).toISOString();
  return nowMs <= Date.parse(deadline);
}

export function fillCandidate(game: OpenGame & { free: number[] }, mode: MatchmakingMode, tickets: Iterable<Ticket>, nowMs: number): { lobby: MatchLobby; team: number } | null {
  const rule = mode.rules.find((r): r is DifferenceRule => r.type === 'difference') ?? null;
  const band = game.override?.skillBand ?? null;
  const present = game.match.lobbies.filter((l) => !('left' in game.match) || !game.match.left.includes(l.lobbyId));
  const mean = present.length ? present.reduce((s, l) => s + l.rating, 0) / present.length : 0;
  const table = roleTable(mode);
  const freeRoles = table ? rolesFree(table, game) : null;
  if (table && !freeRoles) return null;
  const vec = table ? new Int32Array(table.names.length) : null;
  let best: { lobby: MatchLobby; team: number } | null = null;
  for (const t of tickets) {
    if (t.region !== game.match.region) continue;
    let team: number;
    if (table) {
      if (!roleVector(table, t.players, vec!)) continue;
      team = freeRoles!.findIndex((free, i) => game.free[i] >= t.players.length && free.every((n, r) => vec![r] <= n));
    } else {
      team = game.free.findIndex((n) => n >= t.players.length);
    }
    if (team < 0) continue;
    if (band && !inBand(lobbyRating(t.players, band.field), band)) continue;
    const rating = rule ? lobbyRating(t.players, rule.field) : 0;
    if (!band && rule && Math.abs(rating - mean) > allowedDifference(rule, Math.max(0, nowMs - Date.parse(t.queuedAt)))) continue;
    if (best && best.lobby.queuedAt <= t.queuedAt) continue;
    const roles = table ? t.players.map((p) => table.names[roleOf(table, p.state)]) : undefined;
    best = { lobby: { lobbyId: t.lobbyId, ticket: t.ticket, players: t.players.map((p) => p.id), rating, queuedAt: t.queuedAt, ...(roles ? { roles } : {}) }, team };
  }
  return best;
}

/**
 * Role modes: the role slots each team lacks now (its roles' counts less the roles of the players still in
 * it), or null when a player's role is not known (a match formed before roles were recorded: not filled).
 */
export function rolesFree(table: RoleTable, game: OpenGame): number[][] | null {
  const roleOfPlayer = new Map<string, string>();
  for (const l of game.match.lobbies) l.players.forEach((id, i) => { if (l.roles?.[i] !== undefined) roleOfPlayer.set(id, l.roles[i]); });
  const out: number[][] = [];
  for (const team of game.match.teams) {
    const free = Array.from(table.counts);
    for (const id of team) {
      const r = table.index.get(roleOfPlayer.get(id) ?? '');
      if (r === undefined) return null;
      free[r]--;
    }
    out.push(free.map((n) => Math.max(0, n)));
  }
  return out;
}

const inBand = (rating: number, band: { min: number; max: number }) => rating >= band.min && rating <= band.max;
