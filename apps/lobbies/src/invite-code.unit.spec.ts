import { inviteCode } from './invite-code';

describe('inviteCode', () => {
  it('uses the configured alphabet, length and prefix', () => {
    for (let i = 0; i < 50; i++) {
      expect(inviteCode({ type: 'alphanumeric', length: 6, prefix: '' })).toMatch(/^[A-HJ-NP-Z2-9]{6}$/);
      expect(inviteCode({ type: 'numeric', length: 4, prefix: 'D-' })).toMatch(/^D-[0-9]{4}$/);
    }
  });
});
