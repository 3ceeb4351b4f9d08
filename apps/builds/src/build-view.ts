import type { Build } from '@spawnpoint/read-models';
import { BuildView } from '@spawnpoint/proto';

/**
 * The read model's row as the API shows it. The row keeps the names of the stored events (`kind` zip|image,
 * `image`); the API uses the hosted service's (`build_type` zip|docker_image, `image_url`).
 */
export function toBuildView(b: Build): BuildView {
  return {
    build_id: b.id,
    name: b.name,
    version: b.version,
    status: b.status as BuildView['status'],
    build_type: b.kind === 'image' ? 'docker_image' : 'zip',
    image_url: b.image,
    executable_path: b.executablePath,
    size_bytes: b.sizeBytes === null ? null : Number(b.sizeBytes),
    error: b.error,
    created_at: b.createdAt.toISOString(),
    updated_at: b.updatedAt.toISOString(),
  };
}
