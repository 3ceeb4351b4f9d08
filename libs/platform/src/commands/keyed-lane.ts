// Runs async work one at a time per key: a server's machine operations (start, stop, restart,
// teardown, so a teardown never releases the ports of the machine that replaced it), a project's
// lobby writes (so membership and invite-code checks and the append are atomic in this process).
export class KeyedLane {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    this.tails.set(key, next);
    void next.finally(() => {
      if (this.tails.get(key) === next) this.tails.delete(key);
    }).catch(() => undefined);
    return next;
  }
}
