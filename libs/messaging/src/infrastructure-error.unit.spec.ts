// Which failures are the database's (retry, never park) and which are the event's (may park), in the
// shapes the pg driver, Prisma's pg adapter and Prisma give them.
import { BusUnavailable, RemoteError } from './bus';
import { isInfrastructureError } from './infrastructure-error';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code, severity: 'ERROR' });
const socketError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, errno: -111, syscall: 'connect' });
/** Prisma's known request error over the pg adapter: the driver error kept in meta.driverAdapterError.cause. */
const prismaAdapterError = (cause: object) =>
  Object.assign(new Error('Invalid invocation'), { code: 'P2010', meta: { driverAdapterError: Object.assign(new Error('DriverAdapterError'), { cause }) } });

describe('isInfrastructureError', () => {
  it.each([
    ['connection refused', socketError('ECONNREFUSED')],
    ['connection reset', socketError('ECONNRESET')],
    ['serialization failure', pgError('40001', 'could not serialize access')],
    ['deadlock', pgError('40P01', 'deadlock detected')],
    ['admin shutdown', pgError('57P01', 'terminating connection due to administrator command')],
    ['too many connections', pgError('53300')],
    ['connection terminated (pg)', new Error('Connection terminated unexpectedly')],
    ['pool connect timeout', new Error('timeout exceeded when trying to connect')],
    ['Prisma cannot reach', Object.assign(new Error("Can't reach database server"), { code: 'P1001' })],
    ['Prisma write conflict', Object.assign(new Error('Transaction failed due to a write conflict or a deadlock'), { code: 'P2034' })],
    ['adapter: connection closed', prismaAdapterError({ kind: 'ConnectionClosed' })],
    ['adapter: postgres 08006', prismaAdapterError({ kind: 'postgres', code: '08006', message: 'connection failure' })],
    ['wrapped in a cause', new Error('apply failed', { cause: pgError('40P01') })],
    ['bus timeout', new BusUnavailable('servers.get', 'timeout')],
    ['a service answering 503', new RemoteError({ error: 'Service unavailable', status: 503 })],
  ])('%s: the database', (_name, err) => expect(isInfrastructureError(err)).toBe(true));

  it.each([
    ['Prisma JSON recursion limit', new Error('Invalid `tx.project.update()` invocation: recursion limit exceeded')],
    ['untranslatable character (NUL in jsonb)', pgError('22P05', 'unsupported Unicode escape sequence')],
    ['unique violation', pgError('23505', 'duplicate key value violates unique constraint')],
    ['record to update not found', Object.assign(new Error('No record was found for an update.'), { code: 'P2025' })],
    ['statement timeout', pgError('57014', 'canceling statement due to statement timeout')],
    ['adapter: unique violation', prismaAdapterError({ kind: 'UniqueConstraintViolation', originalCode: '23505' })],
    ['a bug in the projection', new TypeError("Cannot read properties of undefined (reading 'x')")],
    ['a service answering 404', new RemoteError({ error: 'server not found', status: 404 })],
    ['a service answering 500', new RemoteError({ error: 'Internal error', status: 500 })],
  ])('%s: the event', (_name, err) => expect(isInfrastructureError(err)).toBe(false));
});
