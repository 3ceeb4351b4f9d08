// Every bus subject's request has one contract class (class-validator decorators); a service checks each
// message it receives against it before any use case runs, so a bad one gets a 422 reply and changes
// nothing. The classes register themselves here with @BusRequest.
import { invalid } from '@spawnpoint/domain';

export type ContractClass<T = object> = new () => T;

const busRequests = new Map<string, ContractClass>();

/** Binds a contract class to the bus subjects whose requests it describes. */
export function BusRequest(...subjects: string[]): ClassDecorator {
  return (target) => {
    for (const subject of subjects) busRequests.set(subject, target as unknown as ContractClass);
  };
}

export function busRequestContract(subject: string): ContractClass | undefined {
  return busRequests.get(subject);
}

/**
 * The request of `subject`, checked against its contract. Throws a 422 DomainError (issues with `loc`
 * under `body`) when it does not conform.
 * TODO(issue 12, contracts): class-transformer + class-validator; until then only the shape's root is checked.
 */
export function parseBusRequest(subject: string, payload: unknown): unknown {
  if (payload !== undefined && payload !== null && typeof payload !== 'object') throw invalid(`${subject}: the request must be an object`, ['body']);
  return payload ?? {};
}
