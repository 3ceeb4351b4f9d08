/** What settings answers show in place of an auth_config secret (write-only). */
export const REDACTED_SECRET = '********';
