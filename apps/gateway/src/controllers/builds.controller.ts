import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, Query, Req, StreamableFile, UseGuards, UseInterceptors } from '@nestjs/common';
import { Readable } from 'node:stream';
import { Bus, RemoteError } from '@spawnpoint/messaging';
import { BLOBS, BlobStore, BUS, CONFIG, PlatformConfig } from '@spawnpoint/platform';
import {
  BuildLogsRequest, BUILDS_PAGE_DEFAULT, ListBuildsRequest, RegisterImageRequest, signArtifactUrl, SUBJECTS, verifyArtifact,
} from '@spawnpoint/proto';
import { Access, AccessGuard, AuthedRequest } from '../http/guard';
import { InputLimitsGuard } from '../http/input-limits.guard';
import { RawBody } from '../http/raw-body';
import { storeUpload } from '../http/upload-blob';
import { parse } from '../http/validation';
import { Doc } from '../openapi/doc';
import {
  ArtifactArchive, ArtifactQuery, ArtifactUrl, Build, BuildDeleted, BuildIdParams, BuildList, BuildLogs, DockerImageBody, ErrorBody, ListBuildsQuery, UploadParams,
  UploadUrl, UploadUrlQuery,
} from '../schemas';
import { IdempotencyInterceptor } from '../http/idempotency';

const notFound = { 404: { description: 'No such build in this project', schema: ErrorBody } };

@Controller('api/v3/builds')
@UseGuards(AccessGuard, InputLimitsGuard)
export class BuildsController {
  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(CONFIG) private readonly config: PlatformConfig,
    @Inject(BLOBS) private readonly blobs: BlobStore,
  ) {}

  @UseInterceptors(IdempotencyInterceptor)
  @Post('upload-url')
  @Access({ auth: 'server', bucket: 'write' })
  @Doc({ summary: 'Get a single-use upload URL (valid 60 minutes) for a new version of the named build', tags: ['builds'], auth: 'server', query: UploadUrlQuery,
    responses: { 201: { description: 'Upload ticket', schema: UploadUrl }, 403: { description: 'Client key', schema: ErrorBody } } })
  async uploadUrl(@Req() req: AuthedRequest, @Query() query: unknown) {
    const q = parse(UploadUrlQuery, query, 'query');
    const t = await this.bus.request(SUBJECTS.builds.requestUpload, { projectId: req.principal!.projectId, name: q.name, executablePath: q.executable_path ?? null });
    return {
      build_id: t.build_id, name: t.name, version: t.version, expires_at: t.expires_at,
      upload_url: `${this.config.publicUrl}/api/v3/builds/uploads/${t.token}`,
      message: `PUT the ZIP of version ${t.version} to upload_url before ${t.expires_at}; processing starts when the upload completes.`,
    };
  }

  @Put('uploads/:token')
  @Access({ auth: 'none' })
  @RawBody()
  @Doc({ summary: 'Upload the ZIP to a URL from upload-url (the URL is the credential); the body is the file, whatever its Content-Type (or none)', tags: ['builds'],
    auth: 'upload-token', params: UploadParams, bodyContentType: 'application/octet-stream',
    responses: { 200: { description: 'Build, processing', schema: Build }, 403: { description: 'Expired, used or unknown URL', schema: ErrorBody }, 413: { description: 'Over 2 GiB', schema: ErrorBody } } })
  async upload(@Req() req: AuthedRequest, @Param() params: unknown) {
    const { token } = parse(UploadParams, params, 'path');
    // Every Content-Type reaches here as the request stream (raw-body.ts); an empty body without one was not parsed at all.
    const source = req.body instanceof Readable ? req.body : req.raw;
    const { blobKey, sizeBytes } = await storeUpload(this.blobs, source, this.config.uploadIdleMs);
    // The builds service takes ownership of the blob (and removes it) from here on.
    return this.bus.request(SUBJECTS.builds.receiveUpload, { token, blobKey, sizeBytes }, { timeoutMs: 30_000 });
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Post(':id/artifact-url')
  @HttpCode(200)
  @Access({ auth: 'server', bucket: 'write' })
  @Doc({ summary: 'Get a signed download URL (valid 60 minutes, no api-key needed) for a ready ZIP build as a tar.gz', tags: ['builds'], auth: 'server',
    params: BuildIdParams,
    responses: { 200: { description: 'Signed artifact URL', schema: ArtifactUrl }, 409: { description: 'Image build, or not ready', schema: ErrorBody }, ...notFound } })
  async artifactUrl(@Req() req: AuthedRequest, @Param() params: unknown) {
    const { id } = parse(BuildIdParams, params, 'path');
    const b = await this.bus.request(SUBJECTS.builds.get, { projectId: req.principal!.projectId, buildId: id });
    if (b.build_type !== 'zip') throw new RemoteError({ error: 'Container image builds have no artifact to download', status: 409 });
    if (b.status !== 'ready') throw new RemoteError({ error: `Build is ${b.status}, not ready`, status: 409 });
    const signed = signArtifactUrl({ baseUrl: this.config.artifactBaseUrl, secret: this.config.artifactSecret, buildId: id, now: new Date() });
    return { build_id: id, url: signed.url, expires_at: signed.expiresAt };
  }

  @Get(':id/artifact')
  @Access({ auth: 'none' })
  @Doc({ summary: 'Download a ready ZIP build, unpacked, as a tar.gz (the signed URL from artifact-url is the credential)', tags: ['builds'], auth: 'none',
    params: BuildIdParams, query: ArtifactQuery,
    responses: {
      200: { description: 'tar.gz of the build directory', schema: ArtifactArchive, contentType: 'application/gzip' },
      403: { description: 'Bad signature, or expired', schema: ErrorBody },
      404: { description: 'Unknown or deleted build', schema: ErrorBody },
      409: { description: 'Image build, or not ready', schema: ErrorBody },
    } })
  async artifact(@Param() params: unknown, @Query() query: unknown) {
    // The signature is checked before anything else, so an unsigned caller learns nothing about build ids.
    const id = String((params as { id?: unknown }).id ?? '');
    const q = (query ?? {}) as { expires?: unknown; signature?: unknown };
    const verdict = verifyArtifact({ secret: this.config.artifactSecret, buildId: id, expires: q.expires, signature: q.signature, now: new Date() });
    if (!verdict.ok) {
      throw new RemoteError({ error: verdict.reason === 'expired' ? 'Artifact URL has expired' : 'Artifact URL is invalid', status: 403 });
    }
    // The tar.gz the builds service stored when it unpacked the build, streamed as it is read.
    const { blobKey } = await this.bus.request(SUBJECTS.builds.artifactBlob, { buildId: id });
    const archive = await this.blobs.open(blobKey);
    if (!archive) throw new RemoteError({ error: 'build not found', status: 404 });
    return new StreamableFile(archive, { type: 'application/gzip', disposition: `attachment; filename="${id}.tar.gz"` });
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Post('docker-image')
  @Access({ auth: 'server', bucket: 'write' })
  @Doc({ summary: 'Register a container image as a new version of the named build (ready at once; the Kubernetes runtime runs it)', tags: ['builds'], auth: 'server',
    body: DockerImageBody, responses: { 201: { description: 'Build (build_type docker_image, status ready)', schema: Build } } })
  image(@Req() req: AuthedRequest, @Body() body: unknown) {
    const b = parse(DockerImageBody, body, 'body');
    return this.bus.request(SUBJECTS.builds.registerImage, { projectId: req.principal!.projectId, name: b.name, image: b.image_url } satisfies RegisterImageRequest);
  }

  @Get()
  @Access({ auth: 'client', bucket: 'read' })
  @Doc({ summary: 'List builds, newest first, a page at a time (limit 1-100, default 50; offset)', tags: ['builds'], auth: 'client', query: ListBuildsQuery,
    responses: { 200: { description: 'A page of builds', schema: BuildList } } })
  list(@Req() req: AuthedRequest, @Query() query: unknown) {
    const q = parse(ListBuildsQuery, query, 'query');
    return this.bus.request(SUBJECTS.builds.list, {
      projectId: req.principal!.projectId, name: q.name, limit: q.limit ?? BUILDS_PAGE_DEFAULT, offset: q.offset ?? 0,
    } satisfies ListBuildsRequest);
  }

  @Get(':id/logs')
  @Access({ auth: 'client', bucket: 'read' })
  @Doc({ summary: 'What processing did with a build (checks, unpacking, the executable found, the reason of a failure), oldest first', tags: ['builds'], auth: 'client',
    params: BuildIdParams, responses: { 200: { description: 'Build logs', schema: BuildLogs }, ...notFound } })
  logs(@Req() req: AuthedRequest, @Param() params: unknown) {
    const { id } = parse(BuildIdParams, params, 'path');
    return this.bus.request(SUBJECTS.builds.logs, { projectId: req.principal!.projectId, buildId: id } satisfies BuildLogsRequest);
  }

  @Get(':id')
  @Access({ auth: 'client', bucket: 'read' })
  @Doc({ summary: 'Get a build; poll until ready', tags: ['builds'], auth: 'client', params: BuildIdParams, responses: { 200: { description: 'Build', schema: Build }, ...notFound } })
  get(@Req() req: AuthedRequest, @Param() params: unknown) {
    const { id } = parse(BuildIdParams, params, 'path');
    return this.bus.request(SUBJECTS.builds.get, { projectId: req.principal!.projectId, buildId: id });
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Delete(':id')
  @Access({ auth: 'server', bucket: 'write' })
  @Doc({ summary: 'Delete a build version (not while an active server uses it)', tags: ['builds'], auth: 'server', params: BuildIdParams,
    responses: { 200: { description: 'Deleted', schema: BuildDeleted }, 409: { description: 'In use', schema: ErrorBody }, ...notFound } })
  delete(@Req() req: AuthedRequest, @Param() params: unknown) {
    const { id } = parse(BuildIdParams, params, 'path');
    return this.bus.request(SUBJECTS.builds.delete, { projectId: req.principal!.projectId, buildId: id });
  }
}
