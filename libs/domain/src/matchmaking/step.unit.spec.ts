// The step's sorts: sortByRating and sortByAge give exactly what Array.prototype.sort gives with byRating
// and byAge, whichever way they place the keys (counted, packed, ranked, scaled binary fractions) and
// however the ids tie.
import { resolveMode } from './mode';
import { byAge, byRating, Entry, entryOf, prepare, sortByAge, sortByRating, Ticket } from './step';

const p = prepare(resolveMode('duel', { teams: 2, playersPerTeam: 1, rules: [{ type: 'difference', field: 'mmr', maxDifference: 100 }] }));
const T0 = Date.parse('2026-11-24T10:00:00.000Z');

function rng(seed: number) {
  return () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

function entries(n: number, rating: (r: () => number) => number, id: (i: number, r: () => number) => string, spreadMs: number, seed = 7): Entry[] {
  const r = rng(seed);
  return Array.from({ length: n }, (_, i) => {
    const t: Ticket = { lobbyId: id(i, r), ticket: 1, region: 'eu', queuedAt: new Date(T0 + Math.floor(r() * spreadMs)).toISOString(), players: [{ id: `p${i}`, state: { mmr: rating(r) } }] };
    return entryOf(p, t, i);
  });
}

const ids = (xs: Entry[]) => xs.map((e) => `${e.id}@${e.seq}`);
const check = (xs: Entry[]) => {
  expect(ids(sortByRating(xs))).toEqual(ids([...xs].sort(byRating)));
  expect(ids(sortByAge(xs))).toEqual(ids([...xs].sort(byAge)));
};

const ascii = (i: number) => `l${i}`;
const hex = (_: number, r: () => number) => Math.floor(r() * 2 ** 32).toString(16).padStart(8, '0') + Math.floor(r() * 2 ** 20).toString(16);
// Ids that share their first 7 code units, or hold units of 127 and above early (the prefix stops there).
const samePrefix = (i: number, r: () => number) => `lobby-x${Math.floor(r() * 50)}-${i % 7}`;
const wide = (i: number, r: () => number) => `${String.fromCharCode(100 + Math.floor(r() * 60))}${String.fromCharCode(120 + Math.floor(r() * 20))}${Math.floor(r() * 9)}-${i}`;
const astral = (i: number, r: () => number) => `${r() < 0.5 ? '\u{1F600}' : '\uFF21'}${Math.floor(r() * 5)}${i % 3}`;
// Any code unit at any place: ids of 1 to 9 units drawn from both sides of 127, NUL and 0xFFFF included.
const UNITS = ['\u0000', 'a', 'b', '\u007e', '\u007f', '\u0080', '\u0100', '\u4e00', '\uffff'];
const units = (_: number, r: () => number) => Array.from({ length: 1 + Math.floor(r() * 9) }, () => UNITS[Math.floor(r() * UNITS.length)]).join('');

describe('sortByRating and sortByAge', () => {
  it.each([
    ['integer ratings with many ties (counted)', (r: () => number) => Math.round(r() * 300), ascii],
    ['one rating for all (a run of every entry)', () => 1000, ascii],
    ['ratings that are means of two or four (binary fractions, scaled)', (r: () => number) => Math.round(r() * 3000) / (r() < 0.5 ? 2 : 4), hex],
    ['ratings that are thirds (ranked)', (r: () => number) => Math.round(r() * 300) / 3, samePrefix],
    ['integers over a wide range (packed)', (r: () => number) => Math.round(r() * 1e9) - 5e8, wide],
    ['negative ratings, zero and minus zero', (r: () => number) => (r() < 0.3 ? -0 : r() < 0.5 ? 0 : -Math.round(r() * 20)), astral],
    ['huge ratings (not scaled)', (r: () => number) => (r() < 0.5 ? 1e300 : Math.round(r() * 10) + 0.5), samePrefix],
  ])('%s', (_, rating, id) => {
    for (const n of [0, 1, 2, 33, 500]) check(entries(n, rating, id, n * 3));
  });

  it('ids of any code units, in short runs and in one long run', () => {
    for (const seed of [1, 2, 3]) {
      check(entries(400, (r) => Math.round(r() * 40), units, 400, seed));
      check(entries(400, () => 1000, units, 400, seed));
    }
  });

  it('duplicate ids keep their input order (stable)', () => {
    const xs = entries(200, (r) => Math.round(r() * 5), (i) => `dup${i % 4}`, 20);
    check(xs);
  });

  it('queue times spread wider than the counting range (packed) and in one millisecond (one run)', () => {
    check(entries(300, (r) => Math.round(r() * 50), hex, 3_600_000 * 24 * 365));
    check(entries(300, (r) => Math.round(r() * 50), samePrefix, 1));
  });
});
