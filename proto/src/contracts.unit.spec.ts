// Every bus request subject has a contract, and a service refuses a message that breaks it with a 422
// whose issues say where (loc under body) — before any use case runs.
import { DomainError } from '@spawnpoint/domain';
import { busRequestContract, parseBusRequest, parkedReplaySubject, SUBJECTS } from './index';

const BROADCASTS = new Set<string>([SUBJECTS.lobbies.updates, SUBJECTS.lobbies.presence, SUBJECTS.matchmaking.queueStats, SUBJECTS.projects.changed]);
const requestSubjects = Object.values(SUBJECTS).flatMap((group) => Object.values(group)).filter((s) => !BROADCASTS.has(s));

function refusal(subject: string, payload: unknown): DomainError {
  try {
    parseBusRequest(subject, payload);
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error(`${subject} accepted ${JSON.stringify(payload)}`);
}

describe('bus request contracts', () => {
  it.each(requestSubjects)('%s has a contract class', (subject) => {
    expect(busRequestContract(subject)).toBeDefined();
  });

  it('parked-event replays of every projection have one', () => {
    expect(busRequestContract(parkedReplaySubject('servers'))).toBeDefined();
  });

  it('a well-formed request passes as sent (unknown fields let through on the bus)', () => {
    const request = { projectId: 'p1', serverId: 's1', fresh: true, addedLater: 1 };
    expect(parseBusRequest(SUBJECTS.servers.get, request)).toBe(request);
    expect(parseBusRequest(SUBJECTS.projects.listPools, {})).toEqual({});
  });

  it('a missing required field is a 422 at its loc', () => {
    const e = refusal(SUBJECTS.servers.get, { projectId: 'p1' });
    expect(e.code).toBe('invalid'); // answered as 422 (libs/platform)
    expect(e.detail).toEqual([{ loc: ['body', 'serverId'], msg: 'Field required', type: 'missing' }]);
  });

  it('a wrong type is a 422 at its loc, nested bodies included', () => {
    expect(refusal(SUBJECTS.lobbies.kick, { projectId: 'p', config: 'default', playerId: 'a', targetId: 7 }).detail)
      .toEqual([{ loc: ['body', 'targetId'], msg: expect.any(String), type: 'string_type' }]);
    expect(refusal(SUBJECTS.servers.start, { projectId: 'p', plan: 'free', body: 'not an object' }).detail)
      .toEqual([{ loc: ['body', 'body'], msg: expect.any(String), type: 'object_type' }]);
    expect(refusal(SUBJECTS.builds.receiveUpload, { token: 't', blobKey: 'upload/x', sizeBytes: 1.5 }).detail)
      .toEqual([{ loc: ['body', 'sizeBytes'], msg: expect.any(String), type: 'int_type' }]);
  });

  it('a message that is not an object is a 422 at body', () => {
    expect(refusal(SUBJECTS.projects.get, 'p1').detail).toEqual([{ loc: ['body'], msg: expect.any(String), type: 'object_type' }]);
  });
});
