import { Body, Controller, HttpCode, Inject, Param, Patch, Post, UseGuards, UseInterceptors } from '@nestjs/common';
import { Bus } from '@spawnpoint/messaging';
import { BUS } from '@spawnpoint/platform';
import { SUBJECTS } from '@spawnpoint/proto';
import { KeyAuthenticator } from '../http/auth';
import { Access, AccessGuard } from '../http/guard';
import { parse } from '../http/validation';
import { Doc } from '../openapi/doc';
import { CreatedProject, CreateProjectBody, ErrorBody, PatchProjectBody, ProjectAdmin, ProjectIdParams, RotatedKeys } from '../schemas';
import { InputLimitsGuard } from '../http/input-limits.guard';
import { IdempotencyInterceptor } from '../http/idempotency';

const bearer = { authorization: { required: true, description: 'Bearer $SPAWNPOINT_ADMIN_TOKEN' } };

@Controller('api/admin/projects')
@UseGuards(AccessGuard, InputLimitsGuard)
export class AdminController {
  constructor(@Inject(BUS) private readonly bus: Bus, private readonly keys: KeyAuthenticator) {}

  @UseInterceptors(IdempotencyInterceptor)
  @Post()
  @Access({ auth: 'admin' })
  @Doc({ summary: 'Create a project; the only time its keys are shown', tags: ['admin'], auth: 'admin', headers: bearer, body: CreateProjectBody,
    responses: { 201: { description: 'Created', schema: CreatedProject }, 401: { description: 'Bad admin token', schema: ErrorBody } } })
  create(@Body() body: unknown) {
    const b = parse(CreateProjectBody, body, 'body');
    return this.bus.request(SUBJECTS.projects.create, { name: b.name, plan: b.plan ?? 'free' });
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Post(':id/keys/rotate')
  @HttpCode(200)
  @Access({ auth: 'admin' })
  @Doc({ summary: 'Replace both keys of a project; the old ones stop working', tags: ['admin'], auth: 'admin', headers: bearer, params: ProjectIdParams,
    responses: { 200: { description: 'New keys', schema: RotatedKeys }, 404: { description: 'No such project', schema: ErrorBody } } })
  async rotate(@Param() params: unknown) {
    const { id } = parse(ProjectIdParams, params, 'path');
    const result = await this.bus.request(SUBJECTS.projects.rotateKeys, { projectId: id });
    this.keys.forget();
    return result;
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Patch(':id')
  @Access({ auth: 'admin' })
  @Doc({ summary: "Change a project's plan or rate limits", tags: ['admin'], auth: 'admin', headers: bearer, params: ProjectIdParams, body: PatchProjectBody,
    responses: { 200: { description: 'Project', schema: ProjectAdmin }, 404: { description: 'No such project', schema: ErrorBody } } })
  async patch(@Param() params: unknown, @Body() body: unknown) {
    const { id } = parse(ProjectIdParams, params, 'path');
    const b = parse(PatchProjectBody, body, 'body');
    const result = await this.bus.request(SUBJECTS.projects.changePlan, { projectId: id, plan: b.plan, rate_limits: b.rate_limits });
    this.keys.forget();
    return result;
  }
}
