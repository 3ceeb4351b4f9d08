// The hosted service's v2 builds API (`/api/v2/builds/builds…`), as its published description and its
// editor uploader use it: the same builds as v3 (one store), in v2's shapes and status codes. Its storage
// webhook (`/v2/storage/hook`) is the hosted service's own plumbing and is not served.
import { Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Req, UseGuards, UseInterceptors } from '@nestjs/common';
import { Readable } from 'node:stream';
import { Bus } from '@spawnpoint/messaging';
import { BLOBS, BlobStore, BUS, CONFIG, PlatformConfig } from '@spawnpoint/platform';
import {
  BuildView, GetBuildRequest, ListBuildsRequest, ReceiveUploadRequest, RequestUploadRequest, SUBJECTS, UploadTicket, V2BuildState,
  type V2BuildView,
} from '@spawnpoint/proto';
import { Access, AccessGuard, AuthedRequest } from '../http/guard';
import { IdempotencyInterceptor } from '../http/idempotency';
import { InputLimitsGuard } from '../http/input-limits.guard';
import { multipartFile } from '../http/multipart-file';
import { RawBody } from '../http/raw-body';
import { storeUpload } from '../http/upload-blob';
import { parse } from '../http/validation';
import { Doc } from '../openapi/doc';
import {
  ErrorBody, V2BuildDeleted, V2BuildDetail, V2BuildIdParams, V2BuildList, V2BuildNameQuery, V2BuildUpload, V2BuildUploadForm, V2ListBuildsQuery, V2UploadUrl,
} from '../schemas';

const notFound = { 404: { description: 'No such build in this project', schema: ErrorBody } };
const invalid = { 422: { description: 'Invalid name', schema: ErrorBody } };
/** v2 has no `processing`: a build whose ZIP is being processed is still `uploading` there. */
const V2_STATUS: Record<BuildView['status'], V2BuildState> = { uploading: 'uploading', processing: 'uploading', ready: 'ready', failed: 'failed' };

/** v2 ignores query parameters it does not know (the hosted service does): only `name` is read. */
const nameOnly = (query: unknown) => {
  const name = (query as Record<string, unknown> | undefined)?.name;
  return name === undefined ? {} : { name };
};

export function toV2Build(b: BuildView): V2BuildView {
  return { build_id: b.build_id, name: b.name, version: b.version, status: V2_STATUS[b.status], created_at: b.created_at, updated_at: b.updated_at };
}

@Controller('api/v2/builds/builds')
@UseGuards(AccessGuard, InputLimitsGuard)
export class V2BuildsController {
  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(CONFIG) private readonly config: PlatformConfig,
    @Inject(BLOBS) private readonly blobs: BlobStore,
  ) {}

  @Get()
  @Access({ auth: 'client', bucket: 'read' })
  @Doc({ summary: 'Legacy: list the builds (all of them, newest first), optionally of one name', tags: ['legacy'], auth: 'client', query: V2ListBuildsQuery,
    responses: { 200: { description: 'Builds', schema: V2BuildList }, ...invalid } })
  async list(@Req() req: AuthedRequest, @Query() query: unknown) {
    const q = parse(V2ListBuildsQuery, nameOnly(query), 'query');
    const builds: V2BuildView[] = [];
    // v2 has no paging: every page of the v3 list, in order.
    for (let offset = 0; ; ) {
      const page = await this.bus.request(SUBJECTS.builds.list, { projectId: req.principal!.projectId, name: q.name, limit: 100, offset } satisfies ListBuildsRequest);
      builds.push(...page.builds.map(toV2Build));
      offset += page.builds.length;
      if (!page.has_more || page.builds.length === 0) return { builds, total_builds: builds.length };
    }
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Post('upload-url')
  @HttpCode(200)
  @Access({ auth: 'server', bucket: 'write' })
  @Doc({ summary: 'Legacy: a single-use upload URL (valid 60 minutes) for a new version of the named build; PUT the ZIP to it. Any body is ignored',
    tags: ['legacy'], auth: 'server', query: V2BuildNameQuery,
    responses: { 200: { description: 'Upload URL', schema: V2UploadUrl }, 403: { description: 'Client key', schema: ErrorBody }, ...invalid } })
  async uploadUrl(@Req() req: AuthedRequest, @Query() query: unknown) {
    const { name = 'default' } = parse(V2BuildNameQuery, nameOnly(query), 'query');
    const t = await this.bus.request(SUBJECTS.builds.requestUpload, { projectId: req.principal!.projectId, name, executablePath: null } satisfies RequestUploadRequest);
    return {
      build_id: t.build_id, name: t.name,
      upload_url: `${this.config.publicUrl}/api/v3/builds/uploads/${t.token}`,
      message: `PUT the ZIP of version ${t.version} to upload_url before ${t.expires_at}; processing starts when the upload completes.`,
      version: t.version, expires_at: t.expires_at,
    };
  }

  // No Idempotency-Key (a streamed body, as the PUT of an upload URL): a retry uploads a new version.
  @Post('upload')
  @HttpCode(202)
  @Access({ auth: 'server', bucket: 'write' })
  @RawBody('multipart')
  @Doc({ summary: 'Legacy: upload a build ZIP directly, as the multipart/form-data file part "file" (at most 2 GiB); processing continues after the answer',
    tags: ['legacy'], auth: 'server', query: V2BuildNameQuery, bodyContentType: 'multipart/form-data', bodySchema: V2BuildUploadForm,
    responses: {
      202: { description: 'Upload received, processing', schema: V2BuildUpload }, 400: { description: 'Malformed multipart body', schema: ErrorBody },
      403: { description: 'Client key', schema: ErrorBody }, 413: { description: 'Over 2 GiB', schema: ErrorBody },
      422: { description: 'Invalid name, or no file part "file" (or more than one file)', schema: ErrorBody },
    } })
  async upload(@Req() req: AuthedRequest, @Query() query: unknown) {
    const { name = 'default' } = parse(V2BuildNameQuery, nameOnly(query), 'query');
    const projectId = req.principal!.projectId;
    const body = req.body instanceof Readable ? req.body : req.raw;
    const form = await multipartFile(body, req.headers['content-type'], 'file');
    // The file first, the build after: an upload that fails midway leaves no build behind.
    const { blobKey, sizeBytes } = await storeUpload(this.blobs, form.file, this.config.uploadIdleMs);
    let ticket: UploadTicket;
    try {
      await form.finished;
      ticket = await this.bus.request(SUBJECTS.builds.requestUpload, { projectId, name, executablePath: null } satisfies RequestUploadRequest);
    } catch (err) {
      await this.blobs.delete(blobKey);
      throw err;
    }
    // The builds service takes the blob from here on (and removes it if it refuses).
    const build = await this.bus.request(SUBJECTS.builds.receiveUpload, { token: ticket.token, blobKey, sizeBytes } satisfies ReceiveUploadRequest, { timeoutMs: 30_000 });
    return {
      build_id: build.build_id, name: build.name, status: 'upload_started', version: build.version, file_size: sizeBytes, upload_time: build.updated_at,
      message: `Version ${build.version} of "${build.name}" received (${sizeBytes} bytes); processing it now. GET the build until it is ready.`,
    };
  }

  @Get(':build_id')
  @Access({ auth: 'client', bucket: 'read' })
  @Doc({ summary: 'Legacy: get a build', tags: ['legacy'], auth: 'client', params: V2BuildIdParams,
    responses: { 200: { description: 'The build', schema: V2BuildDetail }, ...notFound } })
  async get(@Req() req: AuthedRequest, @Param() params: unknown) {
    const { build_id } = parse(V2BuildIdParams, params, 'path');
    const b = await this.bus.request(SUBJECTS.builds.get, { projectId: req.principal!.projectId, buildId: build_id } satisfies GetBuildRequest);
    return { name: b.name, build: toV2Build(b), found: true, message: `Version ${b.version} of "${b.name}" is ${V2_STATUS[b.status]}` };
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Delete(':build_id')
  @Access({ auth: 'server', bucket: 'write' })
  @Doc({ summary: 'Legacy: delete a build version (not while an active server uses it)', tags: ['legacy'], auth: 'server', params: V2BuildIdParams,
    responses: { 200: { description: 'Deleted', schema: V2BuildDeleted }, 409: { description: 'In use', schema: ErrorBody }, ...notFound } })
  async delete(@Req() req: AuthedRequest, @Param() params: unknown) {
    const { build_id } = parse(V2BuildIdParams, params, 'path');
    await this.bus.request(SUBJECTS.builds.delete, { projectId: req.principal!.projectId, buildId: build_id } satisfies GetBuildRequest);
    return { status: 'success', message: `Build ${build_id} deleted` };
  }
}
