// Which project a game's log line belongs to. Machines this process started carry it in their spec; a
// machine adopted after a restart of the servers service (a pod that kept running) is looked up once,
// so its lines are stored too instead of being dropped.
export class LogAttribution {
  private readonly looked = new Map<string, Promise<string | null>>();

  constructor(
    private readonly started: (serverId: string) => string | undefined,
    private readonly lookup: (serverId: string) => Promise<string | null>,
  ) {}

  /** The server's project; null for a server this platform does not know (its lines are dropped). */
  projectOf(serverId: string): string | Promise<string | null> {
    const known = this.started(serverId);
    if (known !== undefined) return known;
    let found = this.looked.get(serverId);
    if (!found) {
      found = this.lookup(serverId).catch(() => {
        this.looked.delete(serverId); // a failed lookup is tried again with the next line
        return null;
      });
      this.looked.set(serverId, found);
    }
    return found;
  }

  forget(serverId: string): void {
    this.looked.delete(serverId);
  }
}
