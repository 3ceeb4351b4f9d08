// Registers bus request handlers for a service; every failure leaves as the spec's error body.
import { Bus, RequestContext, Unsubscribe } from '@spawnpoint/messaging';
import { asRemote } from './errors';

export type Handlers = Record<string, (payload: any, ctx: RequestContext) => Promise<unknown> | unknown>;

export async function serve(bus: Bus, handlers: Handlers): Promise<Unsubscribe[]> {
  return Promise.all(
    Object.entries(handlers).map(([subject, fn]) =>
      bus.handle(subject, async (payload, ctx) => {
        try {
          return await fn(payload, ctx);
        } catch (err) {
          throw asRemote(err);
        }
      }),
    ),
  );
}
