// JSON.stringify is recursive and overflows the stack on the fuzzer's deepest values; this writes the
// same text iteratively.
export function jsonText(value: unknown): string {
  const out: string[] = [];
  // Work items: a value to write, or literal text (closing brackets, commas, keys).
  const stack: ({ v: unknown } | { text: string })[] = [{ v: value }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if ('text' in item) {
      out.push(item.text);
      continue;
    }
    const v = item.v;
    if (Array.isArray(v)) {
      out.push('[');
      stack.push({ text: ']' });
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ v: v[i] });
        if (i > 0) stack.push({ text: ',' });
      }
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v).filter(([, x]) => x !== undefined);
      out.push('{');
      stack.push({ text: '}' });
      for (let i = entries.length - 1; i >= 0; i--) {
        stack.push({ v: entries[i][1] });
        stack.push({ text: `${JSON.stringify(entries[i][0])}:` });
        if (i > 0) stack.push({ text: ',' });
      }
    } else {
      out.push(JSON.stringify(v) ?? 'null');
    }
  }
  return out.join('');
}
