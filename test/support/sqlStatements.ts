// A SQL file's statements without its comments: what a migration does, whatever its comments say, so that a shipped
// migration's comments may be rewritten while what it runs stays pinned (test/migrate.test.ts).

/**
 * text with every `--` line comment and `/* *\/` block comment removed (not inside a quoted literal or identifier;
 * a dollar-quoted body is code and is read through) and each run of whitespace made one space.
 */
export function statementsOf(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '-' && text[i + 1] === '-') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      let depth = 0;
      do {
        if (text.startsWith('/*', i)) depth++, (i += 2);
        else if (text.startsWith('*/', i)) depth--, (i += 2);
        else i++;
      } while (depth > 0 && i < text.length);
      out += ' ';
    } else if (c === "'" || c === '"') {
      const escapes =
        c === "'" &&
        /[eE]$/.test(text.slice(Math.max(0, i - 1), i)) &&
        !/\w[eE]$/.test(text.slice(Math.max(0, i - 2), i));
      let j = i + 1;
      while (j < text.length) {
        if (escapes && text[j] === '\\') j += 2;
        else if (text[j] === c && text[j + 1] === c) j += 2;
        else if (text[j] === c) break;
        else j++;
      }
      out += text.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out.replace(/\s+/g, ' ').trim();
}
