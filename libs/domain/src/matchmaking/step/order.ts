// The step's two orders (byAge: the anchors; byRating: the walk) and the sorts into them: sortedByKey gives
// a comparison sort's very order, by counting and numeric id prefixes instead of string compares.
import { cmp, Entry } from './entries';

/** Oldest first (queuedAt in code-unit order, then lobby id), as the step anchors. */
export const byAge = (a: Entry, b: Entry) =>
  (a.canon && b.canon ? a.queuedMs - b.queuedMs : cmp(a.t.queuedAt, b.t.queuedAt)) || cmp(a.id, b.id);
/** Rating, then lobby id: the order candidates are walked in. */
export const byRating = (a: Entry, b: Entry) => a.rating - b.rating || cmp(a.id, b.id);
/**
 * A number whose order agrees with the code-unit order of `s` (a ≤ b when s ≤ t; equal numbers say
 * nothing): its first 7 code units as base-128 digits (49 bits, exact in a double). A unit of 127 or more
 * ends it (127, then zeros), so what follows such a unit never decides; a shorter string reads as zeros.
 */
function idPrefix(s: string): number {
  let k = 0;
  for (let i = 0; i < 7; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 0;
    if (c >= 127) {
      k = k * 128 + 127;
      for (i++; i < 7; i++) k *= 128;
      return k;
    }
    k = k * 128 + c;
  }
  return k;
}

/**
 * Sorts out[from, to) (entries of one key) by id, stably: by their idPrefix (in pk, moved with them) first,
 * the ids compared only where those are equal. Ids are unique in practice, so most pairs are two numbers.
 */
function sortRunById(out: Entry[], pk: Float64Array, from: number, to: number): void {
  const len = to - from;
  if (len <= 32) {
    for (let i = from + 1; i < to; i++) {
      const v = out[i];
      const vk = pk[i];
      let j = i - 1;
      for (; j >= from && (pk[j] > vk || (pk[j] === vk && cmp(out[j].id, v.id) > 0)); j--) {
        out[j + 1] = out[j];
        pk[j + 1] = pk[j];
      }
      out[j + 1] = v;
      pk[j + 1] = vk;
    }
    return;
  }
  const run = out.slice(from, to);
  const keys = pk.slice(from, to);
  const order = Array.from({ length: len }, (_, i) => i);
  order.sort((a, b) => keys[a] - keys[b] || cmp(run[a].id, run[b].id));
  for (let i = 0; i < len; i++) {
    out[from + i] = run[order[i]];
    pk[from + i] = keys[order[i]];
  }
}

/** Largest key range sorted by counting (per entry): a count per key beats a comparison sort up to here. */
const COUNTING_SPAN = 4;

/**
 * A copy of `entries` in the order of a stable sort by `key` (a finite number), ties by lobby id: the
 * same order as Array.prototype.sort with (key difference || id order), without comparing most pairs.
 * Keys that are binary fractions of a small denominator (a party's mean of 2 or 4 ratings) are scaled to
 * integers first, exactly. Integer keys in a range of at most COUNTING_SPAN × n + 1,024 are placed by a
 * counting sort (by key, then input order); in a wider range that fits, each entry becomes one number
 * (key − min) × n + its index, and a typed-array sort orders them all; else the keys are ranked by a
 * typed-array sort first. Only runs of one key are then sorted by id (sortRunById).
 */
function sortedByKey(entries: Entry[], key: (e: Entry) => number): Entry[] {
  const n = entries.length;
  if (n < 2) return entries.slice();
  const keys = new Float64Array(n);
  // Each id's prefix, read in input order (where the entries and their ids lie near each other in memory:
  // read in sorted order, nearly every read is a cache miss), then moved with its entry.
  const ids = new Float64Array(n);
  for (let i = 0; i < n; i++) ids[i] = idPrefix(entries[i].id);
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let integers = true;
  for (let i = 0; i < n; i++) {
    const k = key(entries[i]);
    keys[i] = k;
    if (k < min) min = k;
    if (k > max) max = k;
    if (integers && !Number.isInteger(k)) integers = false;
  }
  if (!integers && Number.isFinite(min) && Number.isFinite(max) && Math.max(-min, max) < 2 ** 40) {
    // A power of two scales exactly, and keeps the order.
    for (const scale of [2, 4, 8, 16]) {
      let all = true;
      for (let i = 0; i < n && all; i++) all = Number.isInteger(keys[i] * scale);
      if (!all) continue;
      for (let i = 0; i < n; i++) keys[i] *= scale;
      min *= scale;
      max *= scale;
      integers = true;
      break;
    }
  }
  const out = new Array<Entry>(n);
  const pk = new Float64Array(n);
  // Run boundaries of `out` (filled below): same[i] = 1 when out[i] has out[i-1]'s key.
  const same = new Uint8Array(n);
  const span = max - min + 1;
  if (integers && span <= COUNTING_SPAN * n + 1024) {
    const start = new Int32Array(span + 1);
    for (let i = 0; i < n; i++) start[((keys[i] - min) | 0) + 1]++;
    for (let k = 0; k < span; k++) start[k + 1] += start[k];
    for (let k = 0; k < span; k++) for (let j = start[k] + 1; j < start[k + 1]; j++) same[j] = 1;
    for (let i = 0; i < n; i++) {
      const at = start[(keys[i] - min) | 0]++;
      out[at] = entries[i];
      pk[at] = ids[i];
    }
  } else if (integers && span * n < Number.MAX_SAFE_INTEGER) {
    const packed = new Float64Array(n);
    for (let i = 0; i < n; i++) packed[i] = (keys[i] - min) * n + i;
    packed.sort();
    let prev = Number.NaN;
    for (let k = 0; k < n; k++) {
      const i = packed[k] % n;
      out[k] = entries[i];
      pk[k] = ids[i];
      const v = keys[i];
      if (v === prev) same[k] = 1;
      prev = v;
    }
  } else {
    const distinct = keys.slice().sort();
    let m = 0;
    for (let i = 0; i < n; i++) if (m === 0 || distinct[i] !== distinct[m - 1]) distinct[m++] = distinct[i]; // -0 and 0: one key
    const rank = new Int32Array(n);
    const start = new Int32Array(m + 1);
    for (let i = 0; i < n; i++) {
      let l = 0;
      let h = m - 1;
      while (l < h) {
        const mid = (l + h) >>> 1;
        if (distinct[mid] < keys[i]) l = mid + 1;
        else h = mid;
      }
      rank[i] = l;
      start[l + 1]++;
    }
    for (let r = 0; r < m; r++) start[r + 1] += start[r];
    const at = start.slice(0, m);
    for (let i = 0; i < n; i++) {
      const k = at[rank[i]]++;
      out[k] = entries[i];
      pk[k] = ids[i];
    }
    for (let r = 0; r < m; r++) for (let k = start[r] + 1; k < start[r + 1]; k++) same[k] = 1;
  }
  for (let from = 0; from < n;) {
    let to = from + 1;
    while (to < n && same[to] === 1) to++;
    if (to - from > 1) sortRunById(out, pk, from, to);
    from = to;
  }
  return out;
}

/** A copy of `entries` sorted byAge. */
export function sortByAge(entries: Entry[]): Entry[] {
  for (const e of entries) if (!e.canon) return [...entries].sort(byAge);
  return sortedByKey(entries, (e) => e.queuedMs);
}

/** A copy of `entries` sorted byRating. */
export function sortByRating(entries: Entry[]): Entry[] {
  return sortedByKey(entries, (e) => e.rating);
}
