import { createHmac, timingSafeEqual } from 'node:crypto';

export interface BuildView {
  build_id: string;
  name: string;
  version: number;
  status: 'uploading' | 'processing' | 'ready' | 'failed';
  kind: 'zip' | 'image';
  image: string | null;
  executable_path: string | null;
  size_bytes: number | null;
  error: string | null;
  created_at: string;
  updated_at: string;
}
export interface RequestUploadRequest { projectId: string; name: string; executablePath?: string | null }
export interface UploadTicket { build_id: string; name: string; version: number; token: string; expires_at: string }
export interface ReceiveUploadRequest { token: string; path: string; sizeBytes: number }
export interface RegisterImageRequest { projectId: string; name: string; image: string }
export interface GetBuildRequest { projectId: string; buildId: string }
export interface ListBuildsRequest { projectId: string; name?: string }
export interface ResolveBuildRequest { projectId: string; name: string; version?: number | null }
export interface ResolvedBuild { buildId: string; name: string; version: number; kind: 'zip' | 'image'; dir: string | null; executablePath: string | null; image: string | null }

// Artifact URLs: how a game pod (or an operator) downloads a ready zip build as a tar.gz of its unpacked
// directory. The URL is the credential: `GET /api/v3/builds/{id}/artifact?expires=<unix s>&signature=<hex>`,
// signature = HMAC-SHA256(secret, `${buildId}.${expires}`), so it is scoped to one build and short-lived.
export interface ArtifactPathRequest { buildId: string }
export interface ArtifactPath { buildId: string; dir: string }

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
