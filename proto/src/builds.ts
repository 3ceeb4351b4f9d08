// Builds: the HTTP inputs, the bus requests to the builds service and its replies.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { SUBJECTS } from './subjects';
import { BusRequest } from './contracts';
import { Bool, Enum, Int, NestedArray, Str, UuidField } from './validation/fields';
import { BuildNameField } from './http/fields';

const B = SUBJECTS.builds;

/** A build as the hosted service names its fields (`build_type`, `image_url`). */
export class BuildView {
  @UuidField() build_id!: string;
  @Str() name!: string;
  @Int() version!: number;
  @Enum(['uploading', 'processing', 'ready', 'failed']) status!: 'uploading' | 'processing' | 'ready' | 'failed';
  @Enum(['zip', 'docker_image']) build_type!: 'zip' | 'docker_image';
  @Str({ nullable: true, description: 'The container image (docker_image builds), else null' }) image_url!: string | null;
  @Str({ nullable: true }) executable_path!: string | null;
  @Int({ nullable: true }) size_bytes!: number | null;
  @Str({ nullable: true }) error!: string | null;
  @Str() created_at!: string;
  @Str() updated_at!: string;
}
export class BuildList {
  @NestedArray(() => BuildView) builds!: BuildView[];
  @Int({ min: 0, description: 'Builds matching the filter, over all pages' }) total!: number;
  @Int() limit!: number;
  @Int() offset!: number;
  @Bool() has_more!: boolean;
}
export class BuildDeleted { @Enum(['build_deleted']) status!: 'build_deleted'; @UuidField() build_id!: string }
export class BuildLogLineView {
  @Str() timestamp!: string;
  @Str() message!: string;
  @Enum(['info', 'warn', 'error']) level!: 'info' | 'warn' | 'error';
}
export class BuildLogs { @UuidField() build_id!: string; @NestedArray(() => BuildLogLineView) logs!: BuildLogLineView[] }

// HTTP inputs.
export class UploadUrlQuery { @BuildNameField() name!: string; @Str({ min: 1, max: 1024, optional: true }) executable_path?: string }
export class UploadUrl {
  @UuidField() build_id!: string; @Str() name!: string; @Int() version!: number; @Str() upload_url!: string; @Str() expires_at!: string; @Str() message!: string;
}
export class DockerImageBody {
  @BuildNameField() name!: string;
  @Str({ min: 1, max: 512, pattern: /^\S+$/, msg: 'must not contain whitespace', description: 'Image reference the cluster pulls, e.g. ghcr.io/studio/game:1.4' }) image_url!: string;
}
export class BuildIdParams { @UuidField() id!: string }
export class UploadParams { @Str({ min: 10, max: 200 }) token!: string }
export const BUILDS_PAGE_DEFAULT = 50;
/** The read model's row offset is a 32-bit integer: a larger one is 422, not a failed query. */
export const MAX_BUILDS_OFFSET = 2 ** 31 - 1;
export class ListBuildsQuery {
  @BuildNameField({ optional: true }) name?: string;
  @Int({ min: 1, max: 100, optional: true, coerce: true, description: `Builds per page, default ${BUILDS_PAGE_DEFAULT}` }) limit?: number;
  @Int({ min: 0, max: MAX_BUILDS_OFFSET, optional: true, coerce: true, description: 'Builds to skip, default 0' }) offset?: number;
}
export class ArtifactQuery {
  @Str({ description: 'Unix time (seconds) after which the URL is refused' }) expires!: string;
  @Str({ description: 'hex HMAC-SHA256 of `{build_id}.{expires}` under SPAWNPOINT_ARTIFACT_SECRET' }) signature!: string;
}
export class ArtifactUrl {
  @UuidField() build_id!: string;
  @Str({ description: 'GET it (no api-key) for a tar.gz of the unpacked build' }) url!: string;
  @Str() expires_at!: string;
}

// Bus requests and replies.
@BusRequest(B.requestUpload)
export class RequestUploadRequest { @Str() projectId!: string; @Str() name!: string; @Str({ optional: true, nullable: true }) executablePath?: string | null }
export class UploadTicket { @Str() build_id!: string; @Str() name!: string; @Int() version!: number; @Str() token!: string; @Str() expires_at!: string }
@BusRequest(B.receiveUpload)
/** `blobKey`: the blob (libs/platform BlobStore) the gateway streamed the ZIP into; the builds service owns it from here. */
export class ReceiveUploadRequest { @Str() token!: string; @Str({ min: 1, max: 200 }) blobKey!: string; @Int({ min: 0 }) sizeBytes!: number }
@BusRequest(B.registerImage)
export class RegisterImageRequest { @Str() projectId!: string; @Str() name!: string; @Str() image!: string }
@BusRequest(B.get, B.delete)
export class GetBuildRequest { @Str() projectId!: string; @Str() buildId!: string }
@BusRequest(B.list)
export class ListBuildsRequest {
  @Str() projectId!: string; @Str({ optional: true }) name?: string;
  @Int({ min: 1, max: 100 }) limit!: number; @Int({ min: 0, max: MAX_BUILDS_OFFSET }) offset!: number;
}
@BusRequest(B.logs)
export class BuildLogsRequest { @Str() projectId!: string; @Str() buildId!: string }
@BusRequest(B.resolve)
export class ResolveBuildRequest { @Str() projectId!: string; @Str() name!: string; @Int({ optional: true, nullable: true }) version?: number | null }
export class ResolvedBuild {
  @Str() buildId!: string; @Str() name!: string; @Int() version!: number; @Enum(['zip', 'image']) kind!: 'zip' | 'image';
  @Str({ nullable: true }) executablePath!: string | null; @Str({ nullable: true }) image!: string | null;
}

// Artifact URLs: how a game pod (or an operator) downloads a ready zip build as a tar.gz of its unpacked
// directory. The URL is the credential: `GET /api/v3/builds/{id}/artifact?expires=<unix s>&signature=<hex>`,
// signature = HMAC-SHA256(secret, `${buildId}.${expires}`), so it is scoped to one build and short-lived.
// The gateway asks the builds service which blob holds a build's tar.gz (404, 409 as the download answers) and streams it.
@BusRequest(B.artifactBlob)
export class ArtifactBlobRequest { @Str() buildId!: string }
export class ArtifactBlob { @Str() buildId!: string; @Str() blobKey!: string }

/** Where the gateway streams uploaded ZIPs: `upload/<uuid>` (the builds service removes them once processed). */
export const UPLOAD_BLOB_PREFIX = 'upload/';
/** The blob key of a ready zip build's unpacked directory as a tar.gz (written by the builds service). */
export const buildArtifactBlobKey = (buildId: string) => `build/${buildId}`;

/** How long a signed artifact URL stays valid (seconds). */
export const ARTIFACT_URL_TTL_S = 60 * 60;

export function artifactSignature(secret: string, buildId: string, expires: number | string): string {
  return createHmac('sha256', secret).update(`${buildId}.${expires}`).digest('hex');
}

export interface SignedArtifactUrl { url: string; expires: number; expiresAt: string }

/** A signed download URL for `buildId`, valid `ttlSeconds` from `now`. Pure: the caller gives the time and secret. */
export function signArtifactUrl(opts: { baseUrl: string; secret: string; buildId: string; now: Date; ttlSeconds?: number }): SignedArtifactUrl {
  const expires = Math.floor(opts.now.getTime() / 1000) + (opts.ttlSeconds ?? ARTIFACT_URL_TTL_S);
  const signature = artifactSignature(opts.secret, opts.buildId, expires);
  const url = `${opts.baseUrl.replace(/\/$/, '')}/api/v3/builds/${encodeURIComponent(opts.buildId)}/artifact?expires=${expires}&signature=${signature}`;
  return { url, expires, expiresAt: new Date(expires * 1000).toISOString() };
}

export type ArtifactVerdict = { ok: true } | { ok: false; reason: 'invalid' | 'expired' };

/** Checks a signed artifact URL's parameters (constant-time comparison); the signature is checked before the expiry. */
export function verifyArtifact(opts: { secret: string; buildId: string; expires: unknown; signature: unknown; now: Date }): ArtifactVerdict {
  const { expires, signature } = opts;
  if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires)) return { ok: false, reason: 'invalid' };
  if (typeof signature !== 'string' || !/^[0-9a-fA-F]{64}$/.test(signature)) return { ok: false, reason: 'invalid' };
  const expected = Buffer.from(artifactSignature(opts.secret, opts.buildId, expires), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return { ok: false, reason: 'invalid' };
  if (Number(expires) * 1000 <= opts.now.getTime()) return { ok: false, reason: 'expired' };
  return { ok: true };
}
