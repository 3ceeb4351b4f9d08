// Registers bus request handlers for a service; every failure leaves as the spec's error body.
// A request carrying a command id runs once per id and payload (RecentCommands): a caller that timed
// out and asks again gets the outcome of the first run, not a second run. A handler's unexpected failure is
// logged here (the caller only learns "500"), and at debug every request is a line: inside the request's span,
// so both carry its trace id.
import { Bus, COMMAND_ID_HEADER, currentCommand, RequestContext, runInCommand, Unsubscribe } from '@spawnpoint/messaging';
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
        const commandId = ctx.headers[COMMAND_ID_HEADER];
        // The handler's own requests are commands of their own: the id is recorded, not passed on.
        // (In process the caller's context would reach the handler: it is replaced, or cleared.)
        const run = () => (commandId || currentCommand() ? runInCommand(commandId ? { commandId, outbound: false } : null, () => fn(payload, ctx)) : fn(payload, ctx));
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
