// The runtime's reports turned into commands: log lines stored, bound ports mark the server running, an
// exit it did not ask for is recorded. A crash with auto_restart is started again by the server-lifecycle
// workflow (server-intents.ts), which reacts to the ServerCrashed this records. A report the store cannot
// take now (a database outage) is retried with backoff until it is applied or refused (ADR-0021): a lost
// "ports bound" must not leave a healthy game launching until its startup timeout kills it.
import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '@spawnpoint/domain';
import { GameRuntime, MachineEvent } from '@spawnpoint/runtime';
import { logger } from '@spawnpoint/logging';
import { ColdStarts } from './cold-starts';
import { SdkReadinessTimeouts } from './game/sdk-readiness-timeouts';
import { LogWriter } from './log-writer';
import { Machines } from './machines';
import { RUNTIME } from './runtime';
import { ServerStates } from './server-states';
import { throughOutages } from './through-outages';

const log = logger('servers');

@Injectable()
export class MachineEvents {
  private unwatch: (() => void) | null = null;
  private watching = false;

  constructor(
    @Inject(RUNTIME) private readonly runtime: GameRuntime,
    private readonly states: ServerStates,
    private readonly machines: Machines,
    private readonly logs: LogWriter,
    private readonly coldStarts: ColdStarts,
    private readonly sdkTimeouts: SdkReadinessTimeouts,
  ) {}

  watch(): void {
    this.watching = true;
    this.unwatch = this.runtime.watch((e) => void this.on(e));
  }

  unwatchRuntime(): void {
    this.watching = false;
    this.unwatch?.();
    this.unwatch = null;
  }

  private async on(event: MachineEvent): Promise<void> {
    if (event.type === 'log') return this.handle(event).catch((err) => log.error({ err }, 'servers: attributing a game log line failed'));
    try {
      // A refusal (already stopped, moved on) is an answer; anything else (the store unreachable, a lost race) is retried.
      await throughOutages(`handling ${event.type} of ${event.serverId}`, () => this.handle(event), {
        retryIf: (err) => !(err instanceof DomainError), active: () => this.watching,
      });
    } catch (err) {
      log.error({ err }, `servers: handling ${event.type} of ${event.serverId} failed`);
    }
  }

  private async handle(event: MachineEvent): Promise<void> {
    if (event.type === 'log') {
      const owner = this.machines.logOwners.projectOf(event.entry.serverId);
      const projectId = typeof owner === 'string' ? owner : await owner;
      if (projectId) this.logs.add(projectId, event.entry);
    } else if (event.type === 'ports_bound') {
      const ran = await this.states.handle(event.serverId, { type: 'MarkRunning', now: event.at.toISOString() });
      if (ran.events.some((e) => e.type === 'ServerRunning')) this.coldStarts.running(event.serverId);
      // An SDK-ready game is still launching: its startup timeout goes on until it reports ready.
      else if (ran.state.status === 'launching' && ran.state.readiness === 'sdk') this.sdkTimeouts.arm(event.serverId, ran.state);
    } else if (event.type === 'exited' && event.reason !== 'SHUTDOWN_SIGNAL') {
      // SHUTDOWN_SIGNAL exits are ours (stop, restart): whoever stopped the machine handles the rest.
      await this.states.recordExit(event.serverId, event.reason, event.exitCode, event.at);
    }
  }
}
