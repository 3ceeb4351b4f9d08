/**
 * Split a startup-args string the way a POSIX shell would, without any expansion:
 * whitespace separates words, '…' is literal, "…" honours \" \\ \$ \` and a backslash
 * escapes any character outside quotes. Throws on an unterminated quote.
 */
export function splitArgs(startupArgs: string | null): string[] {
  if (startupArgs === null) return [];
  const args: string[] = [];
  let word = '';
  let inWord = false; // distinguishes an empty quoted word ('') from no word
  for (let i = 0; i < startupArgs.length; i++) {
    const ch = startupArgs[i];
    if (/\s/.test(ch)) {
      if (inWord) args.push(word);
      word = '';
      inWord = false;
    } else if (ch === "'") {
      const end = startupArgs.indexOf("'", i + 1);
      if (end === -1) throw new Error(`unterminated ' in startup args at ${i}`);
      word += startupArgs.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (ch === '"') {
      const quoted = readDoubleQuoted(startupArgs, i);
      word += quoted.text;
      inWord = true;
      i = quoted.end;
    } else if (ch === '\\') {
      // A trailing backslash has nothing to escape: keep it.
      if (i + 1 < startupArgs.length) i++;
      word += startupArgs[i];
      inWord = true;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (inWord) args.push(word);
  return args;
}

const ESCAPABLE_IN_DOUBLE_QUOTES = new Set(['"', '\\', '$', '`']);

/** Reads "…" starting at the opening quote: its unescaped text and the index of the closing quote. */
function readDoubleQuoted(source: string, start: number): { text: string; end: number } {
  let text = '';
  for (let i = start + 1; i < source.length; i++) {
    const ch = source[i];
    if (ch === '"') return { text, end: i };
    if (ch === '\\' && ESCAPABLE_IN_DOUBLE_QUOTES.has(source[i + 1])) {
      text += source[++i];
    } else if (ch === '\\' && source[i + 1] === '\n') {
      i++; // line continuation
    } else {
      text += ch;
    }
  }
  throw new Error(`unterminated " in startup args at ${start}`);
}
