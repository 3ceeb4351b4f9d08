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
