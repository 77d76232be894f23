// Custom metric formulas (docs/decisions.md §5): metric names, numbers, + - * / and parentheses. Parsed, never eval'd.
import { formulaAdd, formulaDiv, formulaMul, formulaSub } from './formulaOperations.ts';
import { FORMULA_BOUND } from './numberRules.ts';

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

// The operations' guards are numberRules.ts's FORMULA_OPERATIONS, in JavaScript (formulaOperations.ts) and in SQL
// (formula_mul and the others in sql/lattice/lattice.sql), both written from it.
const OPERATION: Record<Exclude<Formula['op'], 'num' | 'ref' | 'neg'>, (a: number, b: number) => number | null> = {
  '+': formulaAdd,
  '-': formulaSub,
  '*': formulaMul,
  '/': formulaDiv,
};

/** Evaluates over a row's metrics; a missing value, a division by zero or a value past FORMULA_BOUND makes it null. */
export function evaluate(formula: Formula, values: Record<string, number | null>): number | null {
  switch (formula.op) {
    case 'num':
      return Math.abs(formula.value) <= FORMULA_BOUND ? formula.value : null;
    case 'ref':
      return values[formula.name] ?? null;
    case 'neg': {
      const v = evaluate(formula.arg, values);
      return v === null ? null : -v;
    }
    default: {
      const a = evaluate(formula.left, values);
      const b = evaluate(formula.right, values);
      return a === null || b === null ? null : OPERATION[formula.op](a, b);
    }
  }
}

/**
 * The formula as a SQL expression, over the SQL of the metrics it names (ref): the formula_ functions, which are
 * evaluate's operations (numberRules.ts). A number is written from its parsed double (String() round-trips through
 * float8in), never from the formula's text. step: puts an operation's SQL in a column of its own, computed `depth`
 * levels over the sums (1: over sums alone), and gives the column's name (formulaColumns, metrics.ts); without it,
 * operations nest.
 */
export function formulaSql(
  formula: Formula,
  ref: (name: string) => string,
  step?: (sql: string, depth: number) => string,
): string {
  return stepped(formula, ref, step).sql;
}

function stepped(
  formula: Formula,
  ref: (name: string) => string,
  step?: (sql: string, depth: number) => string,
): { sql: string; depth: number } {
  switch (formula.op) {
    case 'num':
      return {
        sql: Math.abs(formula.value) <= FORMULA_BOUND ? `'${String(formula.value)}'::float8` : 'null::float8',
        depth: 0,
      };
    case 'ref':
      return { sql: `(${ref(formula.name)})`, depth: 0 };
    case 'neg': {
      const arg = stepped(formula.arg, ref, step);
      return { sql: `(-${arg.sql})`, depth: arg.depth };
    }
    default: {
      const fn = { '+': 'formula_add', '-': 'formula_sub', '*': 'formula_mul', '/': 'formula_div' }[formula.op];
      const left = stepped(formula.left, ref, step);
      const right = stepped(formula.right, ref, step);
      const sql = `${fn}(${left.sql}, ${right.sql})`;
      const depth = Math.max(left.depth, right.depth) + 1;
      return { sql: step ? step(sql, depth) : sql, depth };
    }
  }
}
