import { Inject, Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Plan } from '@spawnpoint/domain';
import { BusQuery, Platform, PLATFORM } from '@spawnpoint/platform';
import { AuthenticateRequest, Principal } from '@spawnpoint/proto';
import { rateLimits } from '../project-views';
import { storedSettings } from '../stored-settings';

export class Authenticate extends BusQuery<AuthenticateRequest, Principal | null> {}

/** Who an api-key (by its hash) is: null when unknown. The gateway asks on every request it has not cached. */
@Injectable()
@QueryHandler(Authenticate)
export class AuthenticateHandler implements IQueryHandler<Authenticate> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  async execute({ request }: Authenticate): Promise<Principal | null> {
    const key = await this.platform.db.apiKey.findUnique({ where: { hash: request.keyHash }, include: { project: true } });
    if (!key) return null;
    const settings = storedSettings(key.project);
    return {
      projectId: key.projectId,
      kind: key.kind as Principal['kind'],
      plan: key.project.plan as Plan,
      rateLimits: rateLimits(key.project.rateLimits),
      clientKeyServerControl: settings.client_key_server_control !== false,
    };
  }
}
