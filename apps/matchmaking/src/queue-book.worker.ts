// The queue worker's thread: the QueueBook and its matching indexes live here, off the event loop that
// serves requests. It applies the deltas in the order they come (one MessagePort keeps it) and answers
// each question after every delta sent before it. A delta that throws is not caught: the thread dies,
// and the proxy (queue-book-proxy.ts) logs it, starts a new one and reloads it from the tickets table.
import { parentPort } from 'node:worker_threads';
import { BOOK_DELTAS, BOOK_QUERIES, type FromWorker, type ToWorker } from './book-queries';
import { QueueBook } from './queue-book';

const book = new QueueBook();
const port = parentPort!;

function handle(m: ToWorker): void {
  if ('delta' in m) {
    (BOOK_DELTAS[m.delta] as (b: QueueBook, ...a: unknown[]) => void)(book, ...m.args);
    return;
  }
  let reply: FromWorker;
  try {
    reply = { id: m.id, ok: true, value: (BOOK_QUERIES[m.query] as (b: QueueBook, ...a: unknown[]) => unknown)(book, ...m.args) };
  } catch (err) {
    reply = { id: m.id, ok: false, error: (err as Error).stack ?? String(err) };
  }
  port.postMessage(reply);
}

// The main thread sends what it heard in one tick as one batch, in order.
port.on('message', (batch: ToWorker[]) => {
  for (const m of batch) handle(m);
});
