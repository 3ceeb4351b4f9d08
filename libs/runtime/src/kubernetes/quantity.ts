// Kubernetes resource quantities ("250m", "1.5", "123456n", "512Mi", "1e3") as plain numbers.

const SUFFIX: Record<string, number> = {
  n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

/** The quantity's value in base units (cores, bytes), or null when it is not a quantity. */
export function parseQuantity(text: string | number | undefined): number | null {
  if (typeof text === 'number') return Number.isFinite(text) ? text : null;
  if (typeof text !== 'string') return null;
  const match = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/.exec(text.trim());
  if (!match) return null;
  const [, number, exponent, suffix = ''] = match;
  const value = Number(number);
  return exponent ? value * 10 ** Number(exponent.slice(1)) : value * SUFFIX[suffix];
}
