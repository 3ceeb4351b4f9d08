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
/** One entry of a 422's `detail` (decisions.md: `{loc: ["body"|"query"|"path"|"header", field, ...], msg, type}`). */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/**
 * 422. Every validation error names what was wrong: `where` is the field's loc (e.g. `['body', 'maxPlayers']`,
 * the detail is then that one issue with `message`) or the issues themselves.
 */
export function invalid(message: string, where: (string | number)[] | ValidationIssue[], type = 'value_error'): DomainError {
  const issues = where.length > 0 && typeof where[0] === 'object' ? (where as ValidationIssue[]) : [{ loc: where as (string | number)[], msg: message, type }];
  return new DomainError('invalid', message, issues);
}
