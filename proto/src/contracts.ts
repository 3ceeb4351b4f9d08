// Every bus subject's request has one contract class (class-validator decorators, see validation/); a
// service checks each message it receives against it before any use case runs, so a bad one gets a 422
// reply and changes nothing. The classes register themselves here with @BusRequest.
//
// Depth: a bus request is checked field by field (types, required fields); the HTTP bodies it carries
// (a server's StartServerBody, a settings patch, ...) were checked in full by the gateway with the same
// classes, so on the bus they are checked as objects only (see `Json` fields) rather than twice in depth.
// Unknown fields are let through on the bus (a newer sender may add one); the HTTP edge refuses them.
import { invalid } from '@spawnpoint/domain';
import { checkContract } from './validation/check';
import type { ContractClass } from './validation/fields';

export type { ContractClass };

const busRequests = new Map<string, ContractClass>();
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
