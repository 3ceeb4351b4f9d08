// One active process among replicas: a PostgreSQL session advisory lock held on a connection of its own.
// Whoever holds it leads; the others stand by and try again on their own ticks (try()), each keeping
// its connection for the next try (one connect per stand-by, not one per try). The lock goes with the
// connection: a leader whose connection breaks has lost the lead (onLost), and a stand-by's next try
// takes it as soon as PostgreSQL has seen the holder's session end (a kill -9 included).
import { Client, type ClientConfig, type Pool } from 'pg';

export type Lead = 'new' | 'held' | false;

export class Leadership {
  private lock: Client | null = null;
  private standby: Client | null = null;
  private closed = false;

  /**
   * `pool`: connections are made with its options (not taken from it: a lock must not hold a pooled
   * connection). `onLost`: the lead went with its connection; called once per lead lost.
   */
  constructor(
    private readonly pool: Pool, private readonly namespace: number, private readonly key: string, private readonly onLost: () => void = () => undefined,
  ) {}

  get leading(): boolean {
    return this.lock !== null;
  }

  /** 'new' when this call took the lead, 'held' when this process already led, false when another does. */
  async try(): Promise<Lead> {
    if (this.closed) return false;
    if (this.lock) return 'held';
    const client = this.standby ?? (await this.connect());
    this.standby = null;
    if (this.closed) {
      await client.end().catch(() => undefined);
      return false;
    }
    let ok: boolean;
    try {
      ok = (await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [this.namespace, this.key])).rows[0].ok;
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    if (!ok) {
      this.standby = client;
      return false;
    }
    this.lock = client;
    return 'new';
  }

  /** Gives the lead up (unlocked, so a stand-by takes it on its next try) and closes both connections. */
  async close(): Promise<void> {
    this.closed = true;
    const { lock, standby } = this;
    this.lock = this.standby = null;
    if (lock) {
      await lock.query('SELECT pg_advisory_unlock($1, hashtext($2))', [this.namespace, this.key]).catch(() => undefined);
      await lock.end().catch(() => undefined);
    }
    await standby?.end().catch(() => undefined);
  }

  private async connect(): Promise<Client> {
    // pg's Pool keeps the options it was made with; its types do not say so.
    const client = new Client((this.pool as unknown as { options: ClientConfig }).options);
    client.on('error', () => {
      if (this.lock === client) {
        this.lock = null;
        this.onLost();
      } else if (this.standby === client) this.standby = null;
      void client.end().catch(() => undefined);
    });
    try {
      await client.connect();
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    return client;
  }
}
