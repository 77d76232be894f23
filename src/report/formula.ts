// Custom metric formulas (DECISIONS §5): metric names, numbers, + - * / and parentheses. Parsed, never eval'd.
export type Formula =
  | { op: 'num'; value: number }
  | { op: 'ref'; name: string }
  | { op: 'neg'; arg: Formula }
  | { op: '+' | '-' | '*' | '/'; left: Formula; right: Formula };

export class FormulaError extends Error {}

const TOKEN = /\s*(?:(\d+(?:\.\d+)?)|([a-z_][a-z0-9_]*)|([-+*/()]))/y;

function tokenize(source: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < source.length) {
    if (/^\s*$/.test(source.slice(TOKEN.lastIndex))) break;
    const at = TOKEN.lastIndex;
    const match = TOKEN.exec(source);
    if (!match) throw new FormulaError(`unexpected character at ${at + 1}: "${source.slice(at).trim()[0]}"`);
    tokens.push(match[1] ?? match[2] ?? match[3]);
  }
  return tokens;
}

/** Recursive descent: expr := term (('+'|'-') term)*; term := unary (('*'|'/') unary)*; unary := '-' unary | atom. */
export function parseFormula(source: string): Formula {
  if (source.length > 1000) throw new FormulaError('formula is longer than 1000 characters');
  const tokens = tokenize(source);
  let i = 0;
  let depth = 0;
  const peek = () => tokens[i];
  const expr = (): Formula => {
    let left = term();
    while (peek() === '+' || peek() === '-') {
      const op = tokens[i++] as '+' | '-';
      left = { op, left, right: term() };
    }
    return left;
  };
  const term = (): Formula => {
    let left = unary();
    while (peek() === '*' || peek() === '/') {
      const op = tokens[i++] as '*' | '/';
      left = { op, left, right: unary() };
    }
    return left;
  };
  const unary = (): Formula => {
    if (peek() === '-') {
      i++;
      return { op: 'neg', arg: unary() };
    }
    return atom();
  };
  const atom = (): Formula => {
    const token = tokens[i++];
    if (token === undefined) throw new FormulaError('formula ends too early');
    if (token === '(') {
      if (++depth > 50) throw new FormulaError('parentheses nest too deeply');
      const inner = expr();
      if (tokens[i++] !== ')') throw new FormulaError('a parenthesis is not closed');
      depth--;
      return inner;
    }
    if (/^\d/.test(token)) return { op: 'num', value: Number(token) };
    if (/^[a-z_]/.test(token)) return { op: 'ref', name: token };
    throw new FormulaError(`unexpected "${token}"`);
  };
  const tree = expr();
  if (i < tokens.length) throw new FormulaError(`unexpected "${tokens[i]}"`);
  return tree;
}

export function references(formula: Formula): string[] {
  switch (formula.op) {
    case 'num':
      return [];
    case 'ref':
      return [formula.name];
    case 'neg':
      return references(formula.arg);
    default:
      return [...references(formula.left), ...references(formula.right)];
  }
}

/** Evaluates over a row's metrics; a missing value or a division by zero makes the whole result null. */
export function evaluate(formula: Formula, values: Record<string, number | null>): number | null {
  switch (formula.op) {
    case 'num':
      return formula.value;
    case 'ref':
      return values[formula.name] ?? null;
    case 'neg': {
      const v = evaluate(formula.arg, values);
      return v === null ? null : -v;
    }
    default: {
      const a = evaluate(formula.left, values);
      const b = evaluate(formula.right, values);
      if (a === null || b === null) return null;
      if (formula.op === '/') return b === 0 ? null : a / b;
      return formula.op === '+' ? a + b : formula.op === '-' ? a - b : a * b;
    }
  }
}
