// What both walks (form-group.ts, form-role-group.ts) share: typed arrays reused from step to step, and the
// skip links over the unused lobbies (root), here so neither walk imports the other.
/** Typed arrays reused from step to step (grown when a queue grows). */
export class Scratch {
  cap = -1;
  rat = new Float64Array(0);
  win = new Float64Array(0);
  sz = new Int32Array(0);
  next = new Int32Array(0);
  prev = new Int32Array(0);
  fen = new Int32Array(0);
  cpos = new Int32Array(0);
  crank = new Int32Array(0);
  clinks = new Int32Array(0);
  clinksPrev = new Int32Array(0);

  ensure(n: number): void {
    if (n <= this.cap) return;
    const cap = Math.max(n, Math.ceil(this.cap * 1.5), 16);
    this.cap = cap;
    this.rat = new Float64Array(cap);
    this.win = new Float64Array(cap);
    this.sz = new Int32Array(cap);
    this.next = new Int32Array(cap + 2);
    this.prev = new Int32Array(cap + 2);
    this.fen = new Int32Array(cap + 1);
    this.cpos = new Int32Array(cap);
    this.crank = new Int32Array(cap);
    // One block of links per party size: at most playersPerTeam blocks, each with two sentinels.
    this.clinks = new Int32Array(0);
    this.clinksPrev = new Int32Array(0);
  }
}

/** Where the links from `from` end (an unused entry or a sentinel), every link on the way pointed there. */
export function root(links: Int32Array, from: number): number {
  let j = from;
  while (links[j] !== j) j = links[j];
  for (let k = from; links[k] !== k;) {
    const after = links[k];
    links[k] = j;
    k = after;
  }
  return j;
}
