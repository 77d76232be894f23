// Finds the lists of every built-in base metric in SQL text and writes each as a {{base: …}} placeholder
// (src/store/baseLists.ts): how sql/lattice/template.sql was made from the live functions, and how a test finds a list
// written out by hand that should be a placeholder.
import { BASE_METRIC_DECLARATIONS, type BaseKind } from '../src/dataModel.ts';

const NAMES = BASE_METRIC_DECLARATIONS.map((m) => m.name);
const KINDS: BaseKind[] = BASE_METRIC_DECLARATIONS.map((m) => m.kind);
const word = (name: string) => new RegExp(`\\b${name}\\b`);

/** The items of text[from, to) (its comments and strings blanked) split at its top-level commas, with their bounds. */
function items(text: string, from: number, to: number): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  let depth = 0;
  let start = from;
  for (let i = from; i < to; i++) {
    const c = text[i];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      out.push({ start, end: i });
      start = i + 1;
    }
  }
  out.push({ start, end: to });
  return out;
}

/** The bounds of each bracket that holds p, innermost first, then the statement around it. */
function enclosing(text: string, p: number): [number, number][] {
  const out: [number, number][] = [];
  let depth = 0;
  for (let i = p; i >= 0; i--) {
    const c = text[i];
    if (c === ')' || c === ']') depth++;
    else if (c === '(' || c === '[') {
      if (depth === 0) {
        let d = 0;
        let j = i;
        for (; j < text.length; j++) {
          if (text[j] === '(' || text[j] === '[') d++;
          else if (text[j] === ')' || text[j] === ']') d--;
          if (d === 0) break;
        }
        out.push([i + 1, j]);
      } else depth--;
    }
  }
  const before = text.lastIndexOf(';', p);
  const after = text.indexOf(';', p);
  out.push([before + 1, after < 0 ? text.length : after]);
  return out;
}

type Found = { start: number; end: number; spec: string };

/** text with its comments and the insides of its string literals blanked, every character where it was. */
const masked = (text: string) =>
  text.replace(/--[^\n]*|'[^']*'/g, (part) =>
    part.startsWith("'") ? `'${' '.repeat(part.length - 2)}'` : ' '.repeat(part.length),
  );

/** A list whose first item's name is at p, if the seven items around it make one. */
function listAt(text: string, p: number, blank = masked(text)): Found | undefined {
  for (const [from, to] of enclosing(blank, p)) {
    const parts = items(blank, from, to);
    const j = parts.findIndex((part) => part.start <= p && p < part.end);
    if (j < 0 || j + NAMES.length > parts.length) continue;
    const chosen = parts.slice(j, j + NAMES.length);
    const raw = chosen.map((part) => text.slice(part.start, part.end));
    // Each inner item names its own metric and no other; the first and last are checked once cut to their pattern.
    const only = (item: string, i: number) =>
      word(NAMES[i]).test(item) && NAMES.every((n, k) => k === i || !word(n).test(item));
    if (!raw.slice(1, -1).every((item, i) => only(item, i + 1))) continue;
    if (!word(NAMES[0]).test(raw[0]) || !word(NAMES[NAMES.length - 1]).test(raw[raw.length - 1])) continue;
    const pattern = (i: number) => raw[i].trim().replace(new RegExp(`\\b${NAMES[i]}\\b`, 'g'), '%');
    // The inner items give each kind's pattern; the first and last may hold text before or after theirs.
    const byKind = new Map<BaseKind, string>();
    for (let i = 1; i < NAMES.length - 1; i++) {
      const seen = byKind.get(KINDS[i]);
      if (seen !== undefined && seen !== pattern(i)) return undefined;
      byKind.set(KINDS[i], pattern(i));
    }
    const first = byKind.get(KINDS[0])!.replaceAll('%', NAMES[0]);
    const last = byKind.get(KINDS[NAMES.length - 1])!.replaceAll('%', NAMES[NAMES.length - 1]);
    const head = raw[0].trimEnd().length - first.length;
    const tail = raw[raw.length - 1].length - raw[raw.length - 1].trimStart().length;
    if (head < 0 || raw[0].slice(head).trimEnd() !== first) continue;
    if (!raw[raw.length - 1].slice(tail).startsWith(last)) continue;
    const count = byKind.get('count')!;
    const spec = [
      count,
      ...(['money', 'decimal'] as const).flatMap((kind) =>
        byKind.get(kind) !== count ? [`${kind}: ${byKind.get(kind)}`] : [],
      ),
    ].join(' ;; ');
    return { start: chosen[0].start + head, end: chosen[chosen.length - 1].start + tail + last.length, spec };
  }
  return undefined;
}

/** text with every list of the built-in base metrics as a placeholder. */
export function withPlaceholders(text: string): string {
  let out = '';
  let at = 0;
  const first = new RegExp(`\\b${NAMES[0]}\\b`, 'g');
  const blank = masked(text);
  for (const match of blank.matchAll(first)) {
    if (match.index < at) continue;
    const found = listAt(text, match.index, blank);
    if (!found) continue;
    out += `${text.slice(at, found.start)}{{base: ${found.spec}}}`;
    at = found.end;
  }
  return out + text.slice(at);
}
