// Which bus subject becomes which command or query of the projects service.
import { route } from '@spawnpoint/platform';
import { SUBJECTS } from '@spawnpoint/proto';
import { ChangePlan, ChangePlanHandler } from './commands/change-plan.handler';
import { CreateProject, CreateProjectHandler } from './commands/create-project.handler';
import { RotateKeys, RotateKeysHandler } from './commands/rotate-keys.handler';
import { UpdateSettings, UpdateSettingsHandler } from './commands/update-settings.handler';
import { Authenticate, AuthenticateHandler } from './queries/authenticate.handler';
import { GetAuthConfig, GetAuthConfigHandler } from './queries/get-auth-config.handler';
import { GetProject, GetProjectHandler } from './queries/get-project.handler';
import { GetSettings, GetSettingsHandler } from './queries/get-settings.handler';
import { ListPools, ListPoolsHandler } from './queries/list-pools.handler';

export const projectsRoutes = () => [
  route(SUBJECTS.projects.create, CreateProject),
  route(SUBJECTS.projects.rotateKeys, RotateKeys),
  route(SUBJECTS.projects.changePlan, ChangePlan),
  route(SUBJECTS.projects.updateSettings, UpdateSettings),
  route(SUBJECTS.projects.authenticate, Authenticate),
  route(SUBJECTS.projects.get, GetProject),
  route(SUBJECTS.projects.getSettings, GetSettings),
  route(SUBJECTS.projects.listPools, ListPools),
  route(SUBJECTS.projects.authConfig, GetAuthConfig),
];

export const PROJECTS_HANDLERS = [
  CreateProjectHandler, RotateKeysHandler, ChangePlanHandler, UpdateSettingsHandler,
  AuthenticateHandler, GetProjectHandler, GetSettingsHandler, ListPoolsHandler, GetAuthConfigHandler,
];
