// routeIntents: a workflow's command intent reaches the route of its target, with its command; an intent
// with no route here is an error the runner retries and reports, never silently resolved.
import type { CommandIntent } from '@spawnpoint/domain';
import { routeIntents } from './intent-routes';

const origin = { workflow: 'w', instance: 'i' };
const intent = (target: CommandIntent['target'], command: { type: string } & Record<string, unknown>, key = 'k'): CommandIntent => ({ kind: 'command', target, command, key });

describe('routeIntents', () => {
  const seen: unknown[] = [];
  const dispatch = routeIntents('servers', {
    aggregates: { server: async (id, command, i) => void seen.push(['server', id, command.type, i.key]) },
    requests: { RefillPool: async (command, i) => void seen.push(['refill', command.projectId, i.key]) },
  });
  beforeEach(() => { seen.length = 0; });

  it('given an intent on an aggregate, runs that aggregate\'s route with the id, the command and the intent', async () => {
    await dispatch(intent({ aggregate: 'server', id: 's1', projectId: 'p1' }, { type: 'StopServer', reason: 'TTL_EXPIRED', now: 't' }, 'ttl:s1'), origin);
    expect(seen).toEqual([['server', 's1', 'StopServer', 'ttl:s1']]);
  });

  it('given a request, runs the route named by it', async () => {
    await dispatch(intent({ request: 'RefillPool', projectId: 'p1' }, { type: 'RefillPool', projectId: 'p1', region: 'eu-west', computeSize: 'small', replacing: 's1', now: 't' }, 'refill:1'), origin);
    expect(seen).toEqual([['refill', 'p1', 'refill:1']]);
  });

  it('throws for a target with no route here, and for a request whose command is of another type; nothing runs', async () => {
    await expect(dispatch(intent({ aggregate: 'lobby', id: 'l1', projectId: null }, { type: 'JoinLobby' }, 'x1'), origin)).rejects.toThrow('servers: no route for the intent x1');
    await expect(dispatch(intent({ request: 'StartLobbyServer', projectId: null }, { type: 'StartLobbyServer' }, 'x2'), origin)).rejects.toThrow('no route for the intent x2');
    await expect(dispatch(intent({ request: 'RefillPool', projectId: null }, { type: 'StopServer' }, 'x3'), origin)).rejects.toThrow('no route for the intent x3');
    expect(seen).toEqual([]);
  });
});
