// One LISTEN connection per store, shared by all of its subscriptions: it wakes them when an append
// commits. Notifications can be lost while reconnecting, so subscriptions also poll.
import { Client } from 'pg';
import { EVENTS_CHANNEL } from './schema';

/** Called with the appended position, or with none when appends may have gone unheard (on (re)connect). */
export type AppendListener = (position?: bigint) => void;

const RECONNECT_DELAY_MS = 1000;

export class AppendNotifier {
  private readonly listeners = new Set<AppendListener>();
  private client?: Client;
  private reconnectTimer?: NodeJS.Timeout;

  constructor(private readonly connectionString: string) {}

  /** Starts listening with the first listener; returns the removal, which stops with the last one. */
  add(listener: AppendListener): () => Promise<void> {
    this.listeners.add(listener);
    if (!this.client && !this.reconnectTimer) this.connect();
    return async () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) await this.stop();
    };
  }

  async stop(): Promise<void> {
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private connect(): void {
    const client = new Client({ connectionString: this.connectionString });
    this.client = client;
    client.on('notification', (msg) => this.notify(msg.payload ? BigInt(msg.payload) : undefined));
    client.on('error', () => this.reconnectLater(client));
    client.on('end', () => this.reconnectLater(client));
    client
      .connect()
      .then(() => client.query(`LISTEN ${EVENTS_CHANNEL}`))
      .then(() => this.notify())
      .catch(() => this.reconnectLater(client));
  }

  private notify(position?: bigint): void {
    for (const listener of this.listeners) listener(position);
  }

  private reconnectLater(client: Client): void {
    if (this.client !== client) return; // stopped, or already replaced
    this.client = undefined;
    client.end().catch(() => undefined);
    if (this.listeners.size === 0) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (!this.client && this.listeners.size > 0) this.connect();
    }, RECONNECT_DELAY_MS);
  }
}
