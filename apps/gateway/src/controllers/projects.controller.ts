import { Body, Controller, Get, HttpCode, Inject, Post, Req, UseGuards, UseInterceptors } from '@nestjs/common';
import { Bus, RemoteError } from '@spawnpoint/messaging';
import { BUS } from '@spawnpoint/platform';
import { SUBJECTS } from '@spawnpoint/proto';
import { KeyAuthenticator } from '../http/auth';
import { Access, AccessGuard, AuthedRequest } from '../http/guard';
import { parse } from '../http/validation';
import { PlayerIdentity } from '../players';
import { Doc } from '../openapi/doc';
import { ErrorBody, Settings, SettingsPatch } from '../schemas';
import { InputLimitsGuard } from '../http/input-limits.guard';
import { IdempotencyInterceptor } from '../http/idempotency';

@Controller('api/v3/projects/settings')
@UseGuards(AccessGuard, InputLimitsGuard)
export class ProjectsController {
  constructor(@Inject(BUS) private readonly bus: Bus, private readonly keys: KeyAuthenticator, private readonly players: PlayerIdentity) {}

  @Get()
  @Access({ auth: 'client', bucket: 'read' })
  @Doc({ summary: 'Project settings (auth secrets redacted)', tags: ['projects'], auth: 'client', responses: { 200: { description: 'Settings', schema: Settings } } })
  get(@Req() req: AuthedRequest) {
    return this.bus.request(SUBJECTS.projects.getSettings, { projectId: req.principal!.projectId });
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Post()
  @HttpCode(200)
  @Access({ auth: 'server', bucket: 'write' })
  @Doc({ summary: 'Update project settings: each top-level field given replaces the stored one', tags: ['projects'], auth: 'server', body: SettingsPatch,
    responses: { 200: { description: 'Settings', schema: Settings }, 403: { description: 'Client key', schema: ErrorBody }, 422: { description: 'Invalid', schema: ErrorBody } } })
  async update(@Req() req: AuthedRequest, @Body() body: unknown) {
    const patch = parse(SettingsPatch, body, 'body');
    if (patch.pool_config?.enabled && req.principal!.plan === 'free') {
      throw new RemoteError({ error: 'Server pools are not available on the free plan', status: 403 });
    }
    const result = await this.bus.request(SUBJECTS.projects.updateSettings, { projectId: req.principal!.projectId, patch });
    if (patch.client_key_server_control !== undefined) this.keys.forget();
    if (patch.auth_config !== undefined) this.players.forget(req.principal!.projectId);
    return result;
  }
}
