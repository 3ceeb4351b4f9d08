import { parseQuantity } from './quantity';

describe('parseQuantity', () => {
  it.each([
    ['250m', 0.25], ['1', 1], ['1.5', 1.5], ['123456789n', 0.123456789], ['500u', 0.0005],
    ['512Mi', 512 * 2 ** 20], ['1Gi', 2 ** 30], ['2k', 2000], ['1M', 1e6], ['1e3', 1000], ['.5', 0.5], [3, 3],
  ])('%s is %d', (text, value) => {
    expect(parseQuantity(text)).toBeCloseTo(value, 12);
  });

  it.each([['lots'], ['1Xi'], [''], [undefined], [Number.NaN]])('%s is not a quantity', (text) => {
    expect(parseQuantity(text)).toBeNull();
  });
});
