import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, Query, Req, UseGuards } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Bus, RemoteError } from '@spawnpoint/messaging';
import { BUS, CONFIG, PlatformConfig } from '@spawnpoint/platform';
import { SUBJECTS, UploadTicket } from '@spawnpoint/proto';
import { Access, AccessGuard, AuthedRequest } from '../http/guard';
import { parse } from '../http/validation';
import { Doc } from '../openapi/doc';
import { Build, BuildDeleted, BuildIdParams, BuildList, DockerImageBody, ErrorBody, ListBuildsQuery, UploadParams, UploadUrl, UploadUrlQuery } from '../schemas';

export const MAX_UPLOAD_BYTES = 2 * 1024 ** 3;
const notFound = { 404: { description: 'No such build in this project', schema: ErrorBody } };

@Controller('api/v3/builds')
@UseGuards(AccessGuard)
export class BuildsController {
  constructor(@Inject(BUS) private readonly bus: Bus, @Inject(CONFIG) private readonly config: PlatformConfig) {}

  @Post('upload-url')
  @HttpCode(200)
  @Access({ auth: 'server', bucket: 'write' })
  @Doc({ summary: 'Get a single-use upload URL (valid 60 minutes) for a new version of the named build', tags: ['builds'], auth: 'server', query: UploadUrlQuery,
    responses: { 200: { description: 'Upload ticket', schema: UploadUrl }, 403: { description: 'Client key', schema: ErrorBody } } })
  async uploadUrl(@Req() req: AuthedRequest, @Query() query: unknown) {
    const q = parse(UploadUrlQuery, query, 'query');
    const t = await this.bus.request<UploadTicket>(SUBJECTS.builds.requestUpload, { projectId: req.principal!.projectId, name: q.name, executablePath: q.executable_path ?? null });
    return {
      build_id: t.build_id, name: t.name, version: t.version, expires_at: t.expires_at,
      upload_url: `${this.config.publicUrl}/api/v3/builds/uploads/${t.token}`,
      message: `PUT the ZIP of version ${t.version} to upload_url before ${t.expires_at}; processing starts when the upload completes.`,
    };
  }

  @Put('uploads/:token')
  @Access({ auth: 'none' })
  @Doc({ summary: 'Upload the ZIP to a URL from upload-url (the URL is the credential)', tags: ['builds'], auth: 'upload-token', params: UploadParams,
    bodyContentType: 'application/zip',
    responses: { 200: { description: 'Build, processing', schema: Build }, 403: { description: 'Expired, used or unknown URL', schema: ErrorBody }, 413: { description: 'Over 2 GiB', schema: ErrorBody } } })
  async upload(@Req() req: AuthedRequest, @Param() params: unknown) {
    const { token } = parse(UploadParams, params, 'path');
    const source = req.body instanceof Readable ? req.body : req.body === undefined ? req.raw : null;
    if (!source) throw new RemoteError({ error: 'Send the ZIP as the raw request body (application/zip or application/octet-stream)', status: 415 });
    const dir = path.join(this.config.dataDir, 'uploads');
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, `${randomUUID()}.zip`);
    let size = 0;
    try {
      await pipeline(source, new Transform({
        transform(chunk: Buffer, _enc, cb) {
          size += chunk.length;
          if (size > MAX_UPLOAD_BYTES) cb(new RemoteError({ error: 'Upload exceeds 2 GiB', status: 413 }));
          else cb(null, chunk);
        },
      }), createWriteStream(file, { flags: 'wx' }));
    } catch (err) {
      await rm(file, { force: true });
      throw err;
    }
    // The builds service takes ownership of the file (and removes it) from here on.
    return this.bus.request(SUBJECTS.builds.receiveUpload, { token, path: file, sizeBytes: size }, { timeoutMs: 30_000 });
  }

  @Post('docker-image')
  @Access({ auth: 'server', bucket: 'write' })
  @Doc({ summary: 'Register a container image as a new version of the named build (ready at once)', tags: ['builds'], auth: 'server', body: DockerImageBody,
    responses: { 201: { description: 'Build', schema: Build } } })
  image(@Req() req: AuthedRequest, @Body() body: unknown) {
    const b = parse(DockerImageBody, body, 'body');
    return this.bus.request(SUBJECTS.builds.registerImage, { projectId: req.principal!.projectId, name: b.name, image: b.image });
  }

  @Get()
  @Access({ auth: 'client', bucket: 'read' })
  @Doc({ summary: 'List builds, newest first', tags: ['builds'], auth: 'client', query: ListBuildsQuery, responses: { 200: { description: 'Builds', schema: BuildList } } })
  list(@Req() req: AuthedRequest, @Query() query: unknown) {
    const q = parse(ListBuildsQuery, query, 'query');
    return this.bus.request(SUBJECTS.builds.list, { projectId: req.principal!.projectId, name: q.name });
  }

  @Get(':id')
  @Access({ auth: 'client', bucket: 'read' })
  @Doc({ summary: 'Get a build; poll until ready', tags: ['builds'], auth: 'client', params: BuildIdParams, responses: { 200: { description: 'Build', schema: Build }, ...notFound } })
  get(@Req() req: AuthedRequest, @Param() params: unknown) {
    const { id } = parse(BuildIdParams, params, 'path');
    return this.bus.request(SUBJECTS.builds.get, { projectId: req.principal!.projectId, buildId: id });
  }

  @Delete(':id')
  @Access({ auth: 'server', bucket: 'write' })
  @Doc({ summary: 'Delete a build version (not while an active server uses it)', tags: ['builds'], auth: 'server', params: BuildIdParams,
    responses: { 200: { description: 'Deleted', schema: BuildDeleted }, 409: { description: 'In use', schema: ErrorBody }, ...notFound } })
  delete(@Req() req: AuthedRequest, @Param() params: unknown) {
    const { id } = parse(BuildIdParams, params, 'path');
    return this.bus.request(SUBJECTS.builds.delete, { projectId: req.principal!.projectId, buildId: id });
  }
}
