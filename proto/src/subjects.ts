// Bus subjects: `<service>.<verb>`. Every request carries projectId where it acts on a project's data;
// a service answers 404 for another project's resource.
export const SUBJECTS = {
  projects: {
    create: 'projects.create',
    rotateKeys: 'projects.rotateKeys',
    changePlan: 'projects.changePlan',
    authenticate: 'projects.authenticate',
    get: 'projects.get',
    getSettings: 'projects.getSettings',
    updateSettings: 'projects.updateSettings',
    listPools: 'projects.listPools',
  },
  builds: {
    requestUpload: 'builds.requestUpload',
    receiveUpload: 'builds.receiveUpload',
    registerImage: 'builds.registerImage',
    get: 'builds.get',
    list: 'builds.list',
    delete: 'builds.delete',
    resolve: 'builds.resolve',
    artifactPath: 'builds.artifactPath',
  },
  servers: {
    start: 'servers.start',
    get: 'servers.get',
    list: 'servers.list',
    stop: 'servers.stop',
    restart: 'servers.restart',
    update: 'servers.update',
    usesBuild: 'servers.usesBuild',
    logs: 'servers.logs',
    logHistogram: 'servers.logHistogram',
    metrics: 'servers.metrics',
  },
} as const;
