// Text that PostgreSQL can store: text columns reject NUL bytes, jsonb rejects the \u0000 escape, and a
// lone UTF-16 surrogate has no UTF-8 form. The gateway refuses such strings (422); text the platform did
// not receive from a client (game output) is made storable instead of failing its whole batch.

const wellFormed = String.prototype as unknown as { isWellFormed?: (this: string) => boolean };
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why `s` cannot be stored as text (NUL, lone surrogate), or null when it can. */
export function unstorableText(s: string): 'nul' | 'surrogate' | null {
  if (s.includes('\u0000')) return 'nul';
  const ok = wellFormed.isWellFormed ? wellFormed.isWellFormed.call(s) : !LONE_SURROGATE.test(s);
  return ok ? null : 'surrogate';
}

/** `s` with every NUL and lone surrogate replaced by U+FFFD (the replacement character). */
export function storableText(s: string): string {
  if (unstorableText(s) === null) return s;
  return s.replace(/\u0000/g, '\ufffd').replace(new RegExp(LONE_SURROGATE.source, 'g'), '\ufffd');
}
