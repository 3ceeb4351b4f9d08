import { Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { BusQuery } from '@spawnpoint/platform';
import { GameSelfRequest, GameServerReply } from '@spawnpoint/proto';
import { GameTokens } from '../game/game-tokens';
import { ServerViews } from '../server-views';

export class GameSelf extends BusQuery<GameSelfRequest, GameServerReply> {}

/** GET /v3/game/self: the token's own server (pool claim data included) and its project. */
@Injectable()
@QueryHandler(GameSelf)
export class GameSelfHandler implements IQueryHandler<GameSelf> {
  constructor(private readonly tokens: GameTokens, private readonly views: ServerViews) {}

  async execute({ request: req }: GameSelf): Promise<GameServerReply> {
    const { projectId } = await this.tokens.authenticate(req.serverId, req.tokenHash);
    // fresh: the view shows every event the token check just read (a claim, the game's own report).
    return { projectId, server: await this.views.get({ projectId, serverId: req.serverId, fresh: true }) };
  }
}
