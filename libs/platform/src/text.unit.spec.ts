import { storableText, unstorableText } from './text';

describe('storable text', () => {
  it('finds NUL and lone surrogates, accepts surrogate pairs', () => {
    expect(unstorableText('ok 🎮')).toBeNull();
    expect(unstorableText('a\u0000')).toBe('nul');
    expect(unstorableText('\ud83c')).toBe('surrogate');
    expect(unstorableText('\udfae x')).toBe('surrogate');
  });

  it('replaces them with U+FFFD and leaves good text as it is', () => {
    expect(storableText('a\u0000b\ud800c🎮')).toBe('a\ufffdb\ufffdc🎮');
    expect(storableText('plain')).toBe('plain');
  });
});
