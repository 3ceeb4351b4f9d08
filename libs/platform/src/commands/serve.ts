// Registers bus request handlers for a service; every failure leaves as the spec's error body.
// A request carrying a command id runs once per id and payload (RecentCommands): a caller that timed
// out and asks again gets the outcome of the first run, not a second run. A handler's unexpected failure is
// logged here (the caller only learns "500"), and at debug every request is a line: inside the request's span,
// so both carry its trace id. A request whose deadline passed before it begins is dropped, never run (ADR-0020).
import { Bus, COMMAND_ID_HEADER, currentCommand, deadlineOf, RemoteError, RequestContext, runInCommand, runWithDeadline, Unsubscribe } from '@spawnpoint/messaging';
import { logger } from '@spawnpoint/logging';
import { RecentCommands } from './command-context';
import { asRemote } from './errors';
import { metricsEnabled } from '../metrics/registry';
import { BusOutcome, observeBusRequest, subjectLabel } from '../metrics/bus-metrics';

export type Handlers = Record<string, (payload: any, ctx: RequestContext) => Promise<unknown> | unknown>;

const recent = new RecentCommands();

const log = logger('bus');

/** The project a request is about, when its payload names one (most do). */
function projectOf(payload: unknown): string | undefined {
  const id = (payload as { projectId?: unknown } | null)?.projectId;
  return typeof id === 'string' ? id : undefined;
}

export async function serve(bus: Bus, handlers: Handlers): Promise<Unsubscribe[]> {
  // Decided once: the ops server (which switches metrics on) starts before any service serves.
  const metered = metricsEnabled();
  return Promise.all(
    Object.entries(handlers).map(([subject, fn]) => {
      const label = subjectLabel(subject);
      return bus.handle(subject, async (payload, ctx) => {
        // Its caller gave up on it (and answered its client 503): running it now would apply a command
        // nobody waits for (a message buffered by a disconnected client, a backlog). Dropped, logged.
        const deadline = deadlineOf(ctx.headers);
        if (deadline !== null && Date.now() > deadline) {
          const lateMs = Date.now() - deadline;
          log.warn({ subject, late_ms: lateMs, project_id: projectOf(payload), command_id: ctx.headers[COMMAND_ID_HEADER] }, `bus: dropped ${subject}: its deadline passed ${lateMs} ms before it began`);
          if (metered) observeBusRequest(label, 'expired', 0);
          throw new RemoteError({ error: 'Service unavailable: the request\'s deadline passed before it began (not applied)', status: 503 });
        }
        const commandId = ctx.headers[COMMAND_ID_HEADER];
        // The handler's own requests are commands of their own: the id is recorded, not passed on.
        // (In process the caller's context would reach the handler: it is replaced, or cleared.)
        // Nor the deadline: the handler's requests are steps of a command that has begun, each with its own timeout.
        const call = () => runWithDeadline(null, () => fn(payload, ctx));
        const run = () => (commandId || currentCommand() ? runInCommand(commandId ? { commandId, outbound: false } : null, call) : call());
        const debug = log.isLevelEnabled('debug');
        const started = metered || debug ? process.hrtime.bigint() : 0n;
        let outcome: BusOutcome = 'ok';
        try {
          return await (commandId ? recent.run(subject, commandId, payload, async () => run()) : run());
        } catch (err) {
          const remote = asRemote(err);
          outcome = remote.body.status >= 500 ? 'error' : 'rejected';
          if (remote.body.status === 500) log.error({ err, subject, project_id: projectOf(payload) }, `bus: handler for ${subject} failed`);
          throw remote;
        } finally {
          const seconds = metered || debug ? Number(process.hrtime.bigint() - started) / 1e9 : 0;
          if (metered) observeBusRequest(label, outcome, seconds);
          if (debug) log.debug({ subject, outcome, duration_ms: Math.round(seconds * 1e5) / 100, project_id: projectOf(payload) }, `bus ${subject} ${outcome}`);
        }
      });
    }),
  );
}
