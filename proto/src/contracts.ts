// Every bus subject's request has one contract class (class-validator decorators, see validation/); a
// service checks each message it receives against it before any use case runs, so a bad one gets a 422
// reply and changes nothing. The classes register themselves here with @BusRequest.
//
// Depth: a bus request is checked field by field (types, required fields); the HTTP bodies it carries
// (a server's StartServerBody, a settings patch, ...) were checked in full by the gateway with the same
// classes, so on the bus they are checked as objects only (see `Json` fields) rather than twice in depth.
// Unknown fields are let through on the bus (a newer sender may add one); the HTTP edge refuses them.
import { invalid } from '@spawnpoint/domain';
import { logger } from '@spawnpoint/logging';
import { checkContract } from './validation/check';
import type { ContractClass } from './validation/fields';

const bus = logger('bus');

export type { ContractClass };

const busRequests = new Map<string, ContractClass>();
const busEvents = new Map<string, ContractClass>();
const prefixRequests: [string, ContractClass][] = [];

/** Binds a contract class to the bus subjects whose requests it describes (`prefix.*`: every subject under it). */
export function BusRequest(...subjects: string[]): ClassDecorator {
  return (target) => {
    for (const subject of subjects) {
      if (subject.endsWith('.*')) prefixRequests.push([subject.slice(0, -1), target as unknown as ContractClass]);
      else busRequests.set(subject, target as unknown as ContractClass);
    }
  };
}

export function busRequestContract(subject: string): ContractClass | undefined {
  return busRequests.get(subject) ?? prefixRequests.find(([prefix]) => subject.startsWith(prefix))?.[1];
}

/**
 * The request of `subject`, checked against its contract. Throws a 422 DomainError (issues with `loc`
 * under `body`) when it does not conform; answers the request as sent when it does.
 */
export function parseBusRequest(subject: string, payload: unknown): unknown {
  const contract = busRequestContract(subject);
  if (!contract) throw new Error(`${subject}: no request contract (add @BusRequest to its class in proto)`);
  const checked = checkContract(contract, payload ?? {}, ['body'], false);
  if (!checked.ok) throw invalid(`${subject}: ${checked.issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ')}`, checked.issues);
  return payload ?? {};
}

/**
 * Binds a contract class to the events it describes: a broadcast subject (`lobbies.updates`) or a store
 * integration event as `<category>.<Type>` (`project.ProjectPlanChanged`), the token its consumers filter on.
 */
export function BusEvent(...names: string[]): ClassDecorator {
  return (target) => {
    for (const name of names) busEvents.set(name, target as unknown as ContractClass);
  };
}

export function busEventContract(name: string): ContractClass | undefined {
  return busEvents.get(name);
}

/**
 * An event's payload checked against its contract (unknown fields let through: a newer producer may add
 * one). Throws a 422 DomainError when it does not conform, so a consumer parks it instead of acting on it.
 */
export function parseBusEvent<T = unknown>(name: string, payload: unknown): T {
  const contract = busEvents.get(name);
  if (!contract) throw new Error(`${name}: no event contract (add @BusEvent to its class in proto)`);
  // The same object checked before against this contract (the listeners of one in-process broadcast share
  // one copy): it conforms still. Over NATS every listener decodes its own, so nothing is skipped there.
  const object = typeof payload === 'object' && payload !== null;
  if (object && conforming.get(payload)?.has(name)) return payload as T;
  const checked = checkContract(contract, payload, ['event'], false);
  if (!checked.ok) throw invalid(`${name}: ${checked.issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ')}`, checked.issues);
  if (object) {
    const names = conforming.get(payload) ?? new Set<string>();
    names.add(name);
    conforming.set(payload, names);
  }
  return payload as T;
}

/** Payload objects already checked, and the contracts they passed. */
const conforming = new WeakMap<object, Set<string>>();

/** A store integration event's contract name: its stream's category and its type (`project.ProjectPlanChanged`). */
export const integrationEventName = (e: { streamId: string; type: string }) => `${e.streamId.slice(0, e.streamId.indexOf('-'))}.${e.type}`;

const dropped = new Map<string, number>();

/**
 * A broadcast listener that acts only on payloads that conform to the subject's contract. A bad one is
 * dropped (a broadcast has no reply and no retry) and logged, at most once a minute per subject.
 */
export function validListener<T>(subject: string, handler: (payload: T) => void, log: (msg: string) => void = (msg) => bus.warn(msg)): (payload: unknown) => void {
  return (payload) => {
    let ok: T;
    try {
      ok = parseBusEvent<T>(subject, payload);
    } catch (err) {
      const last = dropped.get(subject) ?? 0;
      if (Date.now() - last > 60_000) {
        dropped.set(subject, Date.now());
        log(`dropped a ${subject} broadcast that breaks its contract: ${(err as Error).message}`);
      }
      return;
    }
    handler(ok);
  };
}
