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
    /** Internal (gateway only): the project's auth_config with its secrets, to verify player tokens. */
    authConfig: 'projects.authConfig',
    /** Broadcast: a project's keys, settings, plan or limits changed; every gateway drops what it cached of it (ADR-0020). */
    changed: 'projects.changed',
  },
  builds: {
    requestUpload: 'builds.requestUpload',
    receiveUpload: 'builds.receiveUpload',
    registerImage: 'builds.registerImage',
    get: 'builds.get',
    list: 'builds.list',
    logs: 'builds.logs',
    delete: 'builds.delete',
    resolve: 'builds.resolve',
    artifactBlob: 'builds.artifactBlob',
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
    /** GET /v3/projects/logs: the lines of every server of a project. */
    projectLogs: 'servers.projectLogs',
    logHistogram: 'servers.logHistogram',
    metrics: 'servers.metrics',
    /** The game API (a server's own token, ADR-0016). */
    gameSelf: 'servers.gameSelf',
    gameReady: 'servers.gameReady',
    gameStatus: 'servers.gameStatus',
    gameStop: 'servers.gameStop',
    /** A server reporting its own state with the project key (the v2 API's X-Server-Status). */
    reportState: 'servers.reportState',
    /** GET /v3/pools: each pool region's capacity (issue 38). */
    poolCapacity: 'servers.poolCapacity',
  },
  lobbies: {
    create: 'lobbies.create',
    getMine: 'lobbies.getMine',
    join: 'lobbies.join',
    leave: 'lobbies.leave',
    updateMyState: 'lobbies.updateMyState',
    adminGet: 'lobbies.adminGet',
    adminDelete: 'lobbies.adminDelete',
    browse: 'lobbies.browse',
    updateSettings: 'lobbies.updateSettings',
    kick: 'lobbies.kick',
    transferHost: 'lobbies.transferHost',
    start: 'lobbies.start',
    heartbeat: 'lobbies.heartbeat',
    endMatch: 'lobbies.endMatch',
    startMatchmaking: 'lobbies.startMatchmaking',
    cancelMatchmaking: 'lobbies.cancelMatchmaking',
    confirmMatch: 'lobbies.confirmMatch',
    declineMatch: 'lobbies.declineMatch',
    /** Internal (matchmaking service): a command of a match's workflow on one lobby. */
    matchCommand: 'lobbies.matchCommand',
    /** Legacy API: the host deletes its lobby (status finished). */
    close: 'lobbies.close',
    openStream: 'lobbies.openStream',
    /** Broadcasts (every listener gets every message). */
    updates: 'lobbies.updates',
    presence: 'lobbies.presence',
  },
  backfill: {
    get: 'backfill.get',
    override: 'backfill.override',
  },
  matchmaking: {
    /** Why the caller's lobby has not matched yet (GET …/me/matchmaking). */
    explain: 'matchmaking.explain',
    /** Internal (backfill service): the game opened or locked its roster; the match hears it before the backfill record. */
    setBackfillAccepting: 'matchmaking.setBackfillAccepting',
    /** Broadcast: live queue figures per (project, config, mode, region). */
    queueStats: 'matchmaking.queueStats',
  },
} as const;
