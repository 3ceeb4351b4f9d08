// The matching step's core, shared by formMatches (one queue given whole) and MatchQueue (a queue kept
// between steps). Not exported from the package: its entries are the engine's own working form.
//
// What a step decides is in engine.ts; this is how it does so fast, with the very same outcome:
// - every ticket's rating, queue time, regions and `equal` values are read once (MatchQueue: once per
//   ticket revision, not per step), its window once per step, into typed arrays by rating order; its
//   players' ids too, which a proposal's lobby then holds (no walk back to the players per proposal)
//   (step/entries.ts; the typed arrays: step/scratch.ts);
// - the sorts by rating and by age place integer keys by counting and compare ids by a numeric prefix
//   read in input order (sortedByKey, step/order.ts): the same order as a comparison sort, without its
//   string compares;
// - the mutual-window, region and `equal` checks of a candidate against the lobbies chosen so far are
//   comparisons against what was precomputed (no arrays built per candidate; step/form-group.ts);
// - the party fit of a candidate is balanceTeams' first pass only (partiesFit), on scratch arrays;
// - a candidate whose party size cannot join the lobbies chosen so far (no room, or no split of the sizes
//   into the teams at all) is not looked at one by one: the walk jumps to the nearest lobby of a size
//   that can, counting the lobbies it passes against the same MAX_LOOKED_AT as before (a Fenwick tree of
//   the unused lobbies, and one skip list per party size). An anchor among lobbies that can never fill
//   a match (e.g. only parties of two left for 5v5) costs a few lookups, not 2,000 candidates.
// Role modes (roles.ts) walk the same way in formRoleGroup (step/form-role-group.ts), with role make-ups in
// place of party sizes: the walk goes only to lobbies of a make-up that fits the role slots still free (and
// whose party a placement on the teams takes), and only full matches form.
//
// step/ holds the code by concern; this file names what engine.ts, queue.ts, replay.ts and the spec import.
export type { Entry, MatchIdOf, Prepared, QueueKey, Ticket } from './step/entries';
export { cmp, eligible, entryOf, prepare, takes } from './step/entries';
export { byAge, byRating, sortByAge, sortByRating } from './step/order';
export { Scratch } from './step/scratch';
export { formInGroup } from './step/form-group';
