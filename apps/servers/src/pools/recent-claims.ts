// The pool servers claimed by start requests shortly before this process started, by the start's command
// id: a start retried after a restart of the servers service (its answer was lost with the process) finds
// the server it claimed instead of claiming a second one. Loaded once at start-up from the read model (it
// has caught up by then). A retry of a claim made by this process is answered by RecentCommands (the same
// request, in flight or done), so nothing is read on the request path. Another replica's claim is not
// known here (docs/adr/0007-idempotent-commands.md).
import { Injectable } from '@nestjs/common';
import type { ReadModels } from '@spawnpoint/read-models';

/** How far back the start-up load looks: retries of a start come within minutes (the workflow runner gives up after ~3). */
export const RECENT_CLAIMS_MS = 10 * 60_000;

@Injectable()
export class RecentClaims {
  private byKey = new Map<string, string>();

  async load(db: ReadModels, now: Date): Promise<void> {
    const rows = await db.server.findMany({
      where: { startKey: { not: null }, poolClaimedAt: { gte: new Date(now.getTime() - RECENT_CLAIMS_MS) } },
      select: { id: true, projectId: true, startKey: true },
    });
    this.byKey = new Map(rows.map((r) => [`${r.projectId}\n${r.startKey}`, r.id]));
  }

  /** The server a start with this command id claimed before this process started. */
  find(projectId: string, commandId: string): string | null {
    return this.byKey.get(`${projectId}\n${commandId}`) ?? null;
  }
}
