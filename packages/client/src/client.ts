// The Spawnpoint client: one object per key, its resources as properties.
//   const sp = new Spawnpoint({ baseUrl: 'http://localhost:8080/api', apiKey: process.env.SPAWNPOINT_KEY });
//   const server = await sp.servers.start({ name: 'eu-1', region: 'europe-west' });
import { Admin, Builds, HealthApi, Lobbies, Projects, Servers } from './resources';
import { Transport, type TransportOptions } from './transport';

export type SpawnpointOptions = TransportOptions;

export class Spawnpoint {
  readonly servers: Servers;
  readonly builds: Builds;
  readonly projects: Projects;
  readonly lobbies: Lobbies;
  readonly admin: Admin;
  readonly health: HealthApi;
  /** The request layer (auth, retries, typed errors), for calls the SDK has no method for yet. */
  readonly transport: Transport;

  constructor(options: SpawnpointOptions) {
    this.transport = new Transport(options);
    this.servers = new Servers(this.transport);
    this.builds = new Builds(this.transport);
    this.projects = new Projects(this.transport);
    this.lobbies = new Lobbies(this.transport);
    this.admin = new Admin(this.transport);
    this.health = new HealthApi(this.transport);
  }
}
