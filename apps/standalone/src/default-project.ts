// Standalone creates one `pro` project on first start. Its keys are kept in the data dir (mode 0600)
// so every start can print them; the database itself holds only their hashes.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Bus } from '@spawnpoint/messaging';
import { SUBJECTS } from '@spawnpoint/proto';

export interface DefaultProject { projectId: string; serverKey: string; clientKey: string }

export async function ensureDefaultProject(bus: Bus, dataDir: string, devKeys: { server: string | null; client: string | null }): Promise<DefaultProject> {
  const file = path.join(dataDir, 'default-project.json');
  const saved: DefaultProject | null = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
  let project: DefaultProject;
  if (!saved) {
    const created = await bus.request(SUBJECTS.projects.create, {
      name: 'default', plan: 'pro', serverKey: devKeys.server ?? undefined, clientKey: devKeys.client ?? undefined,
    });
    project = { projectId: created.project_id, serverKey: created.server_key, clientKey: created.client_key };
  } else if ((devKeys.server && devKeys.server !== saved.serverKey) || (devKeys.client && devKeys.client !== saved.clientKey)) {
    const rotated = await bus.request(SUBJECTS.projects.rotateKeys, {
      projectId: saved.projectId, serverKey: devKeys.server ?? saved.serverKey, clientKey: devKeys.client ?? saved.clientKey,
    });
    project = { projectId: saved.projectId, serverKey: rotated.server_key, clientKey: rotated.client_key };
  } else {
    project = saved;
  }
  writeFileSync(file, JSON.stringify(project, null, 2), { mode: 0o600 });
  return project;
}
