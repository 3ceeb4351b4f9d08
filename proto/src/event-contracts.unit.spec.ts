// Broadcasts and the store events other services consume have contracts too: a listener acts only on a
// payload that conforms (a bad broadcast is dropped and logged), a consumer gets a 422 for a bad event
// (its durable consumer parks it) instead of acting on a half-formed one.
import { DomainError } from '@spawnpoint/domain';
import { busEventContract, integrationEventName, LobbyUpdate, parseBusEvent, SUBJECTS, validListener } from './index';

const update: LobbyUpdate = { projectId: 'p1', config: 'default', lobbyId: 'l1', revision: 3, kind: 'updated', lobby: { id: 'l1' }, removed: [] };

describe('bus event contracts', () => {
  it.each([SUBJECTS.lobbies.updates, SUBJECTS.lobbies.presence])('the %s broadcast has a contract', (subject) => {
    expect(busEventContract(subject)).toBeDefined();
  });

  it.each(['project.ProjectSettingsUpdated', 'project.ProjectPlanChanged', 'build.BuildReady', 'build.BuildImageRegistered', 'build.BuildDeleted'])(
    'the consumed store event %s has a contract', (name) => {
      expect(busEventContract(name)).toBeDefined();
    });

  it('names a store event by its stream category and type', () => {
    expect(integrationEventName({ streamId: 'project-6f1c-22', type: 'ProjectPlanChanged' })).toBe('project.ProjectPlanChanged');
  });

  it('a conforming event passes as sent, unknown fields included', () => {
    const data = { projectId: 'p1', settings: {}, at: '2026-11-24T00:00:00.000Z' };
    expect(parseBusEvent('project.ProjectSettingsUpdated', data)).toBe(data);
  });

  it('an event missing what consumers read is a 422 that says where', () => {
    let err: unknown;
    try {
      parseBusEvent('build.BuildDeleted', { buildId: 'b1', projectId: 'p1', name: 'n', version: 'two', at: 'x' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).detail).toEqual([expect.objectContaining({ loc: ['event', 'version'] })]);
  });

  it('listeners sharing one broadcast copy check it once; another object is checked on its own', () => {
    const a: string[] = [];
    const b: string[] = [];
    const first = validListener<LobbyUpdate>(SUBJECTS.lobbies.updates, (u) => a.push(u.lobbyId), (m) => a.push(m));
    const second = validListener<LobbyUpdate>(SUBJECTS.lobbies.updates, (u) => b.push(u.lobbyId), (m) => b.push(m));
    const shared = { ...update };
    first(shared);
    second(shared);
    expect(a).toEqual([update.lobbyId]);
    expect(b).toEqual([update.lobbyId]);
    // The same content with a bad field, as another object: refused although its twin passed.
    expect(() => parseBusEvent(SUBJECTS.lobbies.updates, { ...shared, revision: 'x' })).toThrow(/revision/);
    // A passed object is not a pass for another contract.
    expect(() => parseBusEvent('build.BuildDeleted', shared)).toThrow(DomainError);
  });

  it('a listener acts on a good broadcast and drops a bad one with one log line per minute', () => {
    const got: LobbyUpdate[] = [];
    const logs: string[] = [];
    const listener = validListener<LobbyUpdate>(SUBJECTS.lobbies.updates, (u) => got.push(u), (m) => logs.push(m));
    listener(update);
    listener({ ...update, revision: 'x' });
    listener({ ...update, kind: 'exploded' });
    listener(null);
    expect(got).toEqual([update]);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/lobbies\.updates.*revision/);
  });
});
