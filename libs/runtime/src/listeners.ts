import type { MachineEvent } from './runtime';

/** Delivers a machine event to every listener; a broken listener neither stops the others nor the runtime. */
export function emitTo(listeners: Iterable<(event: MachineEvent) => void>, event: MachineEvent): void {
  for (const listener of listeners) {
    try {
      listener(event);
    } catch (err) {
      // Surface it as an uncaught error, outside the runtime's own bookkeeping.
      process.nextTick(() => { throw err; });
    }
  }
}
