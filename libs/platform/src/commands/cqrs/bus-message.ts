// Commands and queries that arrive over the bus. Each use case is one message class (in its service's
// `commands/` or `queries/` folder) with one @CommandHandler / @QueryHandler; a service lists which bus
// subject builds which message (its routes). The request is the subject's contract from `proto/`,
// already validated when the message is built (see bus-dispatch.ts).
import { Command, Query } from '@nestjs/cqrs';
import type { BusSubjects } from '@spawnpoint/messaging';

/** What a bus-borne message carries besides its request. */
export interface MessageContext {
  /** The command id of a gateway write (`command-id` header): derive ids from it, so a re-sent command finds its first outcome. */
  commandId: string | null;
  headers: Record<string, string>;
}

export const NO_CONTEXT: MessageContext = Object.freeze({ commandId: null, headers: {} }) as MessageContext;

/** A use case that changes state. `R`: its reply. */
export abstract class BusCommand<Req, R> extends Command<R> {
  constructor(readonly request: Req, readonly context: MessageContext = NO_CONTEXT) {
    super();
  }
}

/** A use case that only reads. `R`: its reply. */
export abstract class BusQuery<Req, R> extends Query<R> {
  constructor(readonly request: Req, readonly context: MessageContext = NO_CONTEXT) {
    super();
  }
}

export type BusMessageClass = new (request: any, context: MessageContext) => BusCommand<unknown, unknown> | BusQuery<unknown, unknown>;

/** One bus subject and the message it becomes. */
export interface BusRoute {
  subject: string;
  message: BusMessageClass;
}

/** The message class a subject may become: one that takes the subject's request and answers its reply (BusSubjects). */
export type MessageOf<S extends keyof BusSubjects> =
  new (request: BusSubjects[S][0], context: MessageContext) => BusCommand<BusSubjects[S][0], BusSubjects[S][1]> | BusQuery<BusSubjects[S][0], BusSubjects[S][1]>;

export const route = <S extends keyof BusSubjects>(subject: S, message: MessageOf<S>): BusRoute => ({ subject, message: message as BusMessageClass });
