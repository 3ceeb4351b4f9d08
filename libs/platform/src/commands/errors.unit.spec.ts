// A dependency that is unreachable (the database, the bus) answers 503, which the gateway sends with
// Retry-After; a failure of the work itself stays 500, and domain errors keep their own status (issue 36 item 7).
import { invalid, notFound } from '@spawnpoint/domain';
import { BusUnavailable, RemoteError } from '@spawnpoint/messaging';
import { ReadModelBehind } from '../projections/projection-runner';
import { asRemote, toErrorBody } from './errors';

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: 'FATAL' });
const socketError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, syscall: 'connect' });
const prismaAdapterError = (cause: object) =>
  Object.assign(new Error('Invalid invocation'), { code: 'P2010', meta: { driverAdapterError: Object.assign(new Error('DriverAdapterError'), { cause }) } });

describe('toErrorBody', () => {
  it.each([
    ['pg: connection terminated (immediate stop)', new Error('Connection terminated unexpectedly')],
    ['pg: admin shutdown 57P01', pgError('57P01', 'terminating connection due to administrator command')],
    ['pg: starting up 57P03', pgError('57P03', 'the database system is starting up')],
    ['pg: connection refused', socketError('ECONNREFUSED')],
    ['pg pool: connect timeout', new Error('timeout exceeded when trying to connect')],
    ['Prisma P1001', Object.assign(new Error("Can't reach database server at 127.0.0.1:5432"), { code: 'P1001' })],
    ['Prisma P1017', Object.assign(new Error('Server has closed the connection.'), { code: 'P1017' })],
    ['Prisma adapter: connection closed', prismaAdapterError({ kind: 'ConnectionClosed' })],
    ['Prisma adapter: not reachable', prismaAdapterError({ kind: 'DatabaseNotReachable' })],
    ['NATS: no responders', new BusUnavailable('servers.stop', 'no responders')],
    ['NATS: timeout', new BusUnavailable('servers.get', 'timeout')],
    ['NATS: disconnected', new BusUnavailable('lobbies.create', 'disconnected')],
    ['read models behind (the database was away)', new ReadModelBehind('read models did not reach position 807 within 10000 ms')],
  ])('%s → 503 in the spec\'s body', (_name, err) => {
    const body = toErrorBody(err);
    expect(body.status).toBe(503);
    expect(body.error).toBe('Service unavailable');
    expect(typeof body.detail).toBe('string');
    expect(asRemote(err).body.status).toBe(503);
  });

  it.each([
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'x')")],
    ['unique violation', pgError('23505', 'duplicate key value violates unique constraint')],
    ['statement timeout', pgError('57014', 'canceling statement due to statement timeout')],
  ])('%s → 500', (_name, err) => expect(toErrorBody(err)).toEqual({ error: 'Internal error', status: 500 }));

  it('keeps domain and remote statuses', () => {
    expect(toErrorBody(notFound('server not found')).status).toBe(404);
    expect(toErrorBody(invalid('bad', ['body', 'x'], 'type')).status).toBe(422);
    expect(toErrorBody(new RemoteError({ error: 'Service unavailable', status: 503, detail: 'x' }))).toEqual({ error: 'Service unavailable', status: 503, detail: 'x' });
  });
});
