import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { invalid, notFound } from '@spawnpoint/domain';
import { BusCommand } from '@spawnpoint/platform';
import { MatchLobbyCommandRequest } from '@spawnpoint/proto';
import { isLive, LobbyStates } from '../lobby-states';
import { LobbyAggregate } from '../lobby-aggregate';

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
  constructor(private readonly states: LobbyStates, private readonly lobbies: LobbyAggregate) {}

  async execute({ request: r }: RunMatchCommand): Promise<{ applied: boolean }> {
    // The bus checked an object: its type is checked here, the decider checks the rest.
    const type: unknown = r.command.type;
    if (typeof type !== 'string' || !MATCH_COMMANDS.has(type)) throw invalid(`not a match command: ${String(type)}`, ['command', 'type']);
    // A lobby's project never changes: a cached live state answers it (anything else is read again).
    const cached = (await this.states.peekOrLoad(r.lobbyId)).state;
    const state = isLive(cached) ? cached : (await this.states.load(r.lobbyId)).state;
    if (!isLive(state)) throw notFound('lobby');
    // Once per command id, decided on the cached state (its append checks it is the head; ADR-0010).
    const ran = await this.lobbies.handle(r.lobbyId, r.command, { projectId: state.projectId, key: r.commandId });
    return { applied: !ran.repeated };
  }
}
