import { describeEventStoreContract } from '../testing/event-store-contract';
import { EventStoreDbEventStore } from './eventstoredb-event-store';

// No EventStoreDB server runs on CI machines by default: set EVENTSTORE_URL (e.g.
// esdb://localhost:2113?tls=false) to run the contract against one.
const url = process.env.EVENTSTORE_URL;

if (url) {
  describeEventStoreContract('EventStoreDbEventStore', async () => {
    const store = new EventStoreDbEventStore({ connectionString: url });
    return { store, cleanup: () => store.close() };
  });
} else {
  describe('EventStoreDbEventStore without a server', () => {
    it('fails ping() through the client when nothing listens', async () => {
      const store = new EventStoreDbEventStore({ connectionString: 'esdb://127.0.0.1:1?tls=false' });
      try {
        await expect(store.ping()).rejects.toThrow(/UNAVAILABLE|ECONNREFUSED/);
      } finally {
        await store.close();
      }
    });
  });
}
