// Who a game request is (ADR-0016): the server its token names, only while the token's hash is the
// server's current one and the server is not stopped. Both refusals are 401 with the Error body.
import { Injectable } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { ActiveServerState } from '@spawnpoint/domain';
import { RemoteError } from '@spawnpoint/messaging';
import { ServerStates } from '../server-states';

const HEX64 = /^[0-9a-f]{64}$/;

@Injectable()
export class GameTokens {
  constructor(private readonly states: ServerStates) {}

  async authenticate(serverId: string, tokenHash: string): Promise<ActiveServerState> {
    // Read the stream's tail, not the cache alone: a stop by another replica must refuse the token at once.
    const { state } = await this.states.load(serverId);
    const expected = state.status === 'none' ? undefined : state.tokenHash;
    if (!expected || !HEX64.test(tokenHash) || !timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(tokenHash, 'hex'))) {
      throw new RemoteError({ error: 'Invalid server token', status: 401 });
    }
    if (state.status === 'stopped') throw new RemoteError({ error: 'Server token no longer valid: the server is stopped', status: 401 });
    return state as ActiveServerState;
  }
}
