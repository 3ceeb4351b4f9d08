// A project row's settings column as the view it was written from. The column is JSON to Prisma; what is
// stored there is only ever a SettingsView the update-settings handler validated (UpdateSettingsBody) and
// the project decider merged, so it is read back as one, here and nowhere else.
import type { SettingsView } from '@spawnpoint/proto';
import type { Project } from '@spawnpoint/read-models';

export function storedSettings(row: Pick<Project, 'settings'>): SettingsView {
  return row.settings as unknown as SettingsView;
}
