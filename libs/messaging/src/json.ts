// One JSON codec for both adapters, so the in-process bus copies exactly what would cross the wire.
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** `undefined` becomes an empty payload (JSON has no encoding for it). */
export function encode(value: unknown): Uint8Array {
  const text = JSON.stringify(value);
  return text === undefined ? new Uint8Array() : encoder.encode(text);
}

export function decode(data: Uint8Array): unknown {
  return data.length === 0 ? undefined : JSON.parse(decoder.decode(data));
}

/** What the receiver would see after the value crossed the wire (JSON semantics, no byte round trip). */
export function jsonCopy<T>(value: T): T {
  const text = JSON.stringify(value);
  return (text === undefined ? undefined : JSON.parse(text)) as T;
}
