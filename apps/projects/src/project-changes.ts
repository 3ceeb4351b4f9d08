// After a project's keys, settings, plan or limits are stored, every gateway is told at once
// (`projects.changed`) so it drops what it cached of the project: a restriction holds on every replica
// from the moment the write is answered (ADR-0020). Sent before the reply on the same connection, so a
// gateway hears it before the writer's client can act on the answer. A lost broadcast (NATS away) is
// covered by the gateways' short cache TTL and their flush on reconnect.
import { Inject, Injectable } from '@nestjs/common';
import { logger } from '@spawnpoint/logging';
import { Platform, PLATFORM } from '@spawnpoint/platform';
import { ProjectChangedBroadcast, SUBJECTS } from '@spawnpoint/proto';

const log = logger('projects');

@Injectable()
export class ProjectChanges {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  async announce(projectId: string, what: ProjectChangedBroadcast['what']): Promise<void> {
    try {
      await this.platform.bus.broadcast(SUBJECTS.projects.changed, { projectId, what } satisfies ProjectChangedBroadcast);
    } catch (err) {
      // The write is stored: answer it; the gateways' TTL bounds how long they may still use the old state.
      log.warn({ err, project_id: projectId }, `could not announce the ${what} change of project ${projectId}`);
    }
  }
}
