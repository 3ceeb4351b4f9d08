import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { invalid, LobbyCommand, lobbyStream, notFound } from '@spawnpoint/domain';
import { BusCommand } from '@spawnpoint/platform';
import { MatchLobbyCommandRequest } from '@spawnpoint/proto';
import { isLive, LobbyStates } from '../lobby-states';
import { LobbyWrites } from '../lobby-writes';

export class RunMatchCommand extends BusCommand<MatchLobbyCommandRequest, { applied: boolean }> {}

/** The lobby commands a match's workflow sends (anything else on this internal subject is refused). */
const MATCH_COMMANDS = new Set(['ReserveForMatch', 'MatchFound', 'MatchReady', 'ReleaseFromMatch', 'ServerAssigned']);

/**
 * A command of a match's workflow on one lobby (the matchmaking service's dispatcher). `commandId` is the
 * intent's key: a command already recorded under it is answered `applied: false`, not applied again. A
 * refusal (the lobby moved on, its ticket changed) is the answer: the match decides what it means.
 */
@Injectable()
@CommandHandler(RunMatchCommand)
export class RunMatchCommandHandler implements ICommandHandler<RunMatchCommand> {
  constructor(private readonly states: LobbyStates, private readonly writes: LobbyWrites) {}

  async execute({ request: r }: RunMatchCommand): Promise<{ applied: boolean }> {
    const type = r.command.type;
    if (typeof type !== 'string' || !MATCH_COMMANDS.has(type)) throw invalid(`not a match command: ${String(type)}`, ['command', 'type']);
    // One read of the lobby's tail answers both: applied already, and the state the write decides on.
    const { applied, loaded: { state } } = await this.states.lobbies.applied(lobbyStream(r.lobbyId), r.commandId);
    if (applied) return { applied: false };
    if (!isLive(state)) throw notFound('lobby');
    await this.writes.run(state.projectId, r.lobbyId, r.command as unknown as LobbyCommand, r.commandId);
    return { applied: true };
  }
}
