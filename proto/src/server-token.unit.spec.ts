import { newServerToken, parseServerToken, serverTokenHash } from './server-token';

const ID = '0b4f2a63-5c3e-4d8e-9a51-2f1c7e0d9b44';

describe('server token', () => {
  it('names its server and parses back to the same hash', () => {
    const { token, hash } = newServerToken(ID);
    expect(token).toMatch(new RegExp(`^spt_${ID}_[A-Za-z0-9_-]{43}$`));
    expect(hash).toBe(serverTokenHash(token));
    expect(parseServerToken(token)).toEqual({ serverId: ID, hash });
  });

  it('is fresh every time', () => {
    expect(newServerToken(ID).token).not.toBe(newServerToken(ID).token);
  });

  it.each(['', 'spt_', `spt_${ID}`, `spt_${ID}_short`, `pf_${ID}_${'a'.repeat(43)}`, `spt_${ID.toUpperCase()}_${'a'.repeat(43)}`, `spt_${ID}_${'a'.repeat(43)} `])(
    'refuses the malformed %p', (token) => {
      expect(parseServerToken(token)).toBeNull();
    });
});
