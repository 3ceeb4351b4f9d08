export interface BuildInfo {
  buildId: string;
  projectId: string;
  name: string;
  version: number;
  createdAt: string;
  updatedAt: string;
}

export type BuildState =
  | { status: 'none' }
  | (BuildInfo & { status: 'uploading'; tokenHash: string; expiresAt: string; executablePath: string | null })
  | (BuildInfo & { status: 'processing'; executablePath: string | null; sizeBytes: number; uploadPath: string })
  | (BuildInfo & { status: 'ready'; kind: 'zip'; executablePath: string; sizeBytes: number })
  | (BuildInfo & { status: 'ready'; kind: 'image'; image: string })
  | (BuildInfo & { status: 'failed'; error: string })
  | (BuildInfo & { status: 'deleted' });
