// Games that may take backfill (their mode's allowBackfill), as their match events fold them, with the
// game's own overrides (accepting, skill band, window) from its backfill events. The matcher asks it, each
// round and before new matches, which games have free slots it may fill now.
import { BackfillEvent, matchDecider, MatchEvent, MatchState, SkillBand } from '@spawnpoint/domain';

export interface OpenGame {
  match: Extract<MatchState, { status: 'assigned' | 'running' }>;
  /** When the server took the game (the window's start, when the game has not overridden it). */
  startedAt: string;
  /** Players per team when the game began: only slots that free up are filled, not initial gaps. */
  initial: number[];
  override: { accepting: boolean; skillBand: SkillBand | null; deadline: string | null } | null;
}

const OVER = new Set(['MatchAborted', 'MatchDissolved', 'MatchFailed', 'MatchCompleted']);

export class OpenMatches {
  private readonly matches = new Map<string, MatchState>();
  private readonly games = new Map<string, OpenGame>();

  /** A committed match or backfill event. */
  apply(event: MatchEvent | BackfillEvent): void {
    if (event.type === 'BackfillOverridden') {
      const game = this.games.get(event.data.matchId);
      if (game) game.override = { accepting: event.data.accepting, skillBand: event.data.skillBand, deadline: event.data.deadline };
      return;
    }
    if (event.type === 'BackfillRosterChanged') return;
    const id = event.data.matchId;
    if (OVER.has(event.type)) {
      this.matches.delete(id);
      this.games.delete(id);
      return;
    }
    if (event.type === 'MatchProposed' && !event.data.allowBackfill) return;
    const before = this.matches.get(id) ?? (event.type === 'MatchProposed' ? matchDecider.initialState : undefined);
    if (!before) return;
    const after = matchDecider.evolve(before, event);
    this.matches.set(id, after);
    if (after.status === 'assigned' || after.status === 'running') {
      const game = this.games.get(id);
      if (game) game.match = after;
      else this.games.set(id, { match: after, startedAt: event.data.at, initial: after.teams.map((t) => t.length), override: null });
    }
  }

  /** Games of this queue (project, config, mode) with a free slot, no fill in flight, not locked by the game. */
  *withFreeSlots(projectId: string, config: string, mode: string): Generator<OpenGame & { free: number[] }> {
    for (const game of this.games.values()) {
      const m = game.match;
      if (m.projectId !== projectId || m.config !== config || m.mode !== mode || m.fill || m.locked) continue;
      const free = game.initial.map((n, i) => Math.max(0, n - (m.teams[i]?.length ?? 0)));
      if (free.some((n) => n > 0)) yield { ...game, free };
    }
  }
}
