// The names Spawnpoint puts on game pods. The runtime finds its pods by these, so they are one contract.

export const MANAGED_BY = 'app.kubernetes.io/managed-by';
export const MANAGER = 'spawnpoint';
export const LABEL_PROJECT = 'spawnpoint.dev/project';
export const LABEL_SERVER = 'spawnpoint.dev/server';
export const LABEL_BUILD = 'spawnpoint.dev/build';
export const LABEL_BUILD_VERSION = 'spawnpoint.dev/build-version';
export const LABEL_REGION = 'spawnpoint.dev/region';
/** "true" on a warm-pool server's pod (started unclaimed; a claim does not relabel it). */
export const LABEL_POOL = 'spawnpoint.dev/pool';

// Labels hold at most 63 restricted characters; the exact ids travel in annotations.
export const ANNOTATION_SERVER_ID = 'spawnpoint.dev/server-id';
export const ANNOTATION_PROJECT_ID = 'spawnpoint.dev/project-id';
export const ANNOTATION_COMPUTE_SIZE = 'spawnpoint.dev/compute-size';
/** JSON `[{name, protocol, internalPort, externalPort}]`: what a relay needs to route, and what a restarted runtime re-reserves. */
export const ANNOTATION_PORTS = 'spawnpoint.dev/ports';

export const GAME_CONTAINER = 'game';
export const FETCH_CONTAINER = 'fetch';
export const PORTS_PROBE_CONTAINER = 'ports-probe';

export const podName = (serverId: string) => `sp-${serverId}`;

/** The label selector of one region's game pods. */
export const regionSelector = (region: string) => `${MANAGED_BY}=${MANAGER},${LABEL_REGION}=${region}`;
