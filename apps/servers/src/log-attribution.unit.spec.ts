import { LogAttribution } from './log-attribution';

describe('LogAttribution (whose log line is it)', () => {
  it('answers from the machines this process started, without a lookup', () => {
    const lookup = jest.fn();
    const attribution = new LogAttribution((id) => (id === 's1' ? 'p1' : undefined), lookup);
    expect(attribution.projectOf('s1')).toBe('p1');
    expect(lookup).not.toHaveBeenCalled();
  });

  it('looks an adopted machine up once for all its lines, and again after forget', async () => {
    const lookup = jest.fn(async (id: string) => (id === 'adopted' ? 'p2' : null));
    const attribution = new LogAttribution(() => undefined, lookup);
    const answers = await Promise.all([attribution.projectOf('adopted'), attribution.projectOf('adopted'), attribution.projectOf('adopted')]);
    expect(answers).toEqual(['p2', 'p2', 'p2']);
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(await attribution.projectOf('stranger')).toBeNull();
    attribution.forget('adopted');
    expect(await attribution.projectOf('adopted')).toBe('p2');
    expect(lookup).toHaveBeenCalledTimes(3);
  });

  it('tries a failed lookup again with the next line', async () => {
    let fail = true;
    const lookup = jest.fn(async () => {
      if (fail) throw new Error('database restarting');
      return 'p3';
    });
    const attribution = new LogAttribution(() => undefined, lookup);
    expect(await attribution.projectOf('s')).toBeNull();
    fail = false;
    expect(await attribution.projectOf('s')).toBe('p3');
  });
});
