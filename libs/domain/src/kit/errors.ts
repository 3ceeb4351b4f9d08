// Typed refusals. The shell maps each code to an HTTP status (see libs/platform http-errors).
export type DomainErrorCode =
  | 'not_found' // 404
  | 'conflict' // 409: the state forbids the action
  | 'forbidden' // 403: not allowed for this caller or plan
  | 'invalid' // 422: the command's values are not acceptable
  | 'bad_request'; // 400

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly detail?: unknown,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const notFound = (what: string) => new DomainError('not_found', `${what} not found`);
export const conflict = (message: string) => new DomainError('conflict', message);
export const forbidden = (message: string) => new DomainError('forbidden', message);
export const invalid = (message: string, detail?: unknown) => new DomainError('invalid', message, detail);
