// The lobbies read model's progress, for the use cases that read it (browse, the server-event consumer).
// The host runs the projection; it hands its runner over here once started, so readers need not import
// the host (which itself depends on them through its consumers).
import { Injectable } from '@nestjs/common';
import type { ProjectionRunner } from '@spawnpoint/platform';

@Injectable()
export class LobbyReadModel {
  private runner: ProjectionRunner | null = null;

  attach(runner: ProjectionRunner): void {
    this.runner = runner;
  }

  /** Applies a batch held back under load, so a read shows what this process has seen. */
  async settle(): Promise<void> {
    await this.running().settle('lobby-');
  }

  /** Waits until every lobby event committed so far is in the read model. */
  async waitForHead(): Promise<void> {
    await this.running().waitForHead('lobby-');
  }

  private running(): ProjectionRunner {
    if (!this.runner) throw new Error('the lobbies read model is not running yet');
    return this.runner;
  }
}
