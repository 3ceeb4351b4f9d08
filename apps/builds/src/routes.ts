// Which bus subject becomes which command or query of the builds service.
import { route } from '@spawnpoint/platform';
import { SUBJECTS } from '@spawnpoint/proto';
import { DeleteBuild, DeleteBuildHandler } from './commands/delete-build.handler';
import { ReceiveUpload, ReceiveUploadHandler } from './commands/receive-upload.handler';
import { RegisterImage, RegisterImageHandler } from './commands/register-image.handler';
import { RequestUpload, RequestUploadHandler } from './commands/request-upload.handler';
import { GetArtifactBlob, GetArtifactBlobHandler } from './queries/artifact-blob.handler';
import { GetBuildLogs, GetBuildLogsHandler } from './queries/build-logs.handler';
import { GetBuild, GetBuildHandler } from './queries/get-build.handler';
import { ListBuilds, ListBuildsHandler } from './queries/list-builds.handler';
import { ResolveBuild, ResolveBuildHandler } from './queries/resolve-build.handler';

export const buildsRoutes = () => [
  route(SUBJECTS.builds.requestUpload, RequestUpload),
  route(SUBJECTS.builds.receiveUpload, ReceiveUpload),
  route(SUBJECTS.builds.registerImage, RegisterImage),
  route(SUBJECTS.builds.delete, DeleteBuild),
  route(SUBJECTS.builds.get, GetBuild),
  route(SUBJECTS.builds.list, ListBuilds),
  route(SUBJECTS.builds.logs, GetBuildLogs),
  route(SUBJECTS.builds.resolve, ResolveBuild),
  route(SUBJECTS.builds.artifactBlob, GetArtifactBlob),
];

export const BUILDS_HANDLERS = [
  RequestUploadHandler, ReceiveUploadHandler, RegisterImageHandler, DeleteBuildHandler,
  GetBuildHandler, ListBuildsHandler, GetBuildLogsHandler, ResolveBuildHandler, GetArtifactBlobHandler,
];
