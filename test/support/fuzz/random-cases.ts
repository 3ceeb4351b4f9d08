// The random round: well-formed requests with one to three positions (query parameters, body positions,
// sometimes a path id or the key) replaced by random junk: text from many scripts and planes, controls,
// NUL and lone surrogates now and then, numbers at the edges, nested values up to 40 levels. Write
// operations keep only cases that are invalid for certain (see cases.ts).
import { acceptsQuery, breaksEdgeRule, Fixtures, FuzzCase, requestBase, setAt } from './cases';
import { accepts, positions } from './json-schema';
import { Operation } from './operations';
import { Prng } from './prng';

const ALPHABETS = [
  'abcdefghijklmnopqrstuvwxyz0123456789', 'ABCXYZ_-.:@/ ', 'äöüßéñçÿþ', 'жизнь', '中文字符', 'العربية', '🎮🚀👩‍💻', '\u0301\u200b\u200d\u2028\u2029\ufeff',
  '\t\n\r\u0001\u001f\u007f', '<>"\'&;%$#{}[]\\`', '\ud800', '\udfff', '\u0000',
];

function junkText(rng: Prng): string {
  const length = rng.chance(0.1) ? rng.int(5000) : rng.int(24);
  let s = '';
  for (let i = 0; i < length; i++) {
    const alphabet = rng.chance(0.03) ? rng.pick(ALPHABETS.slice(-3)) : rng.pick(ALPHABETS.slice(0, -3));
    s += rng.pick([...alphabet]);
  }
  return s;
}

function junk(rng: Prng, depth = 0): unknown {
  switch (rng.int(depth > 3 ? 6 : 9)) {
    case 0: return junkText(rng);
    case 1: return rng.pick([0, -1, 1, 2 ** 31, 2 ** 53, -(2 ** 53), 1e308, 5e-324, 0.5, 65_536, 86_401]);
    case 2: return rng.chance(0.5);
    case 3: return null;
    case 4: return junkText(rng);
    case 5: return rng.int(1000);
    case 6: return Array.from({ length: rng.int(4) }, () => junk(rng, depth + 1));
    case 7: return Object.fromEntries(Array.from({ length: rng.int(4) }, () => [junkText(rng), junk(rng, depth + 1)]));
    default: {
      let v: unknown = junk(rng, 4);
      for (let i = 0, n = 28 + rng.int(12); i < n; i++) v = rng.chance(0.5) ? [v] : { [junkText(rng) || 'k']: v };
      return v;
    }
  }
}

export function randomCasesFor(op: Operation, fx: Fixtures & { otherKey?: string }, rng: Prng, count: number): FuzzCase[] {
  const write = op.method !== 'GET';
  const { base, baseBody, jsonBody } = requestBase(op, fx, rng);
  const bodySchema = op.body?.contentType === 'application/json' ? op.body.schema : undefined;
  const spots = bodySchema ? positions(bodySchema).filter((p) => p.at.length > 0) : [];
  const queryParams = op.params.filter((p) => p.in === 'query');
  const pathNames = op.params.filter((p) => p.in === 'path').map((p) => p.name);
  const out: FuzzCase[] = [];
  for (let tries = 0; out.length < count && tries < count * 5; tries++) {
    const c = base(`random #${tries}`);
    let body = baseBody;
    let pathChanged = false;
    for (let i = 0, n = 1 + rng.int(3); i < n; i++) {
      const where = rng.int(10);
      if (where < 6 && spots.length > 0) {
        body = setAt(body, rng.pick(spots).at, junk(rng));
      } else if (where < 9 && queryParams.length > 0) {
        const p = rng.pick(queryParams);
        c.query = [...c.query.filter(([k]) => k !== p.name), [p.name, String(junk(rng, 4))]];
      } else if (pathNames.length > 0) {
        c.pathParams[rng.pick(pathNames)] = junkText(rng) || 'x';
        pathChanged = true;
      }
    }
    if (bodySchema && body !== baseBody) c.body = jsonBody(body);
    if (fx.otherKey && 'api-key' in c.headers && rng.chance(0.25)) c.headers['api-key'] = fx.otherKey;
    // Judged on the final request: a later change may have put back a valid value.
    const badQuery = c.query.some(([k, v]) => {
      const p = queryParams.find((x) => x.name === k);
      return typeof v === 'string' && (breaksEdgeRule(v) || (p !== undefined && !acceptsQuery(p.schema, v)));
    });
    const badBody = bodySchema !== undefined && body !== baseBody && (!accepts(bodySchema, body) || breaksEdgeRule(body));
    if (write && !pathChanged && !badQuery && !badBody) continue;
    out.push(c);
  }
  return out;
}
