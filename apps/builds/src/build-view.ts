import type { Build } from '@spawnpoint/read-models';
import { BuildView } from '@spawnpoint/proto';

export function toBuildView(b: Build): BuildView {
  return {
    build_id: b.id,
    name: b.name,
    version: b.version,
    status: b.status as BuildView['status'],
    kind: b.kind as BuildView['kind'],
    image: b.image,
    executable_path: b.executablePath,
    size_bytes: b.sizeBytes === null ? null : Number(b.sizeBytes),
    error: b.error,
    created_at: b.createdAt.toISOString(),
    updated_at: b.updatedAt.toISOString(),
  };
}
