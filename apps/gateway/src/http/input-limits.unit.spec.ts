import { checkRequestInputs, inputIssues, MAX_JSON_DEPTH } from './input-limits';

/** A value `levels` deep: `{}` is one level. */
function nested(levels: number): unknown {
  let v: unknown = {};
  for (let i = 1; i < levels; i++) v = { a: v };
  return v;
}

describe('input limits', () => {
  it('accepts ordinary text, emoji (surrogate pairs) and values exactly 32 levels deep', () => {
    expect(inputIssues({ name: 'Ünïcode 🎮', custom_data: nested(MAX_JSON_DEPTH), list: [[['x']]] }, 'body')).toEqual([]);
  });

  it('names a NUL in a value, at any depth, with array positions as integers', () => {
    expect(inputIssues({ custom_data: { a: [{ b: 'x\u0000' }] } }, 'body')).toEqual([
      { loc: ['body', 'custom_data', 'a', 0, 'b'], msg: 'string must not contain NUL (\\u0000)', type: 'string_unicode' },
    ]);
  });

  it('names lone surrogates (high or low) in values and in object keys', () => {
    const issues = inputIssues({ state: { '\ud800k': 1, ok: 'a\udc00' } }, 'body');
    expect(issues.map((i) => i.loc)).toEqual([['body', 'state', '\ud800k'], ['body', 'state', 'ok']]);
    expect(issues[0].msg).toMatch(/^key must be valid Unicode/);
    expect(issues[1].msg).toMatch(/^string must be valid Unicode/);
  });

  it('refuses a value 33 levels deep at its top-level field, once', () => {
    expect(inputIssues({ settings: { x: nested(MAX_JSON_DEPTH), y: nested(MAX_JSON_DEPTH) } }, 'body')).toEqual([
      { loc: ['body', 'settings'], msg: 'JSON value nested more than 32 levels deep', type: 'value_error' },
    ]);
  });

  it('walks 100,000 levels without recursion', () => {
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(inputIssues({ custom_data: deep }, 'body')).toHaveLength(1);
  });

  it('stops at 20 issues however many strings are bad', () => {
    expect(inputIssues({ a: Array.from({ length: 1000 }, () => '\u0000') }, 'body')).toHaveLength(20);
  });

  it('checks path params and query (objects with another prototype), and skips streams', () => {
    const query = Object.create({}) as Record<string, unknown>;
    query.match_id = '\u0000';
    expect(() => checkRequestInputs({ params: { config: 'c' }, query, body: undefined })).toThrow(expect.objectContaining({
      body: { error: 'Validation error', status: 422, detail: [{ loc: ['query', 'match_id'], msg: 'string must not contain NUL (\\u0000)', type: 'string_unicode' }] },
    }));
    expect(inputIssues({ config: 'a\u0000' }, 'path')[0].loc).toEqual(['path', 'config']);
    expect(inputIssues(Buffer.from([0]), 'body')).toEqual([]);
  });
});
