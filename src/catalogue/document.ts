// Reads a catalogue file (YAML 1.2, so JSON too) and says where in it each problem is: every problem is a path such
// as reports[1].metrics[3] and the line it starts on, found through the parsed document's source ranges.
import { LineCounter, parseDocument } from 'yaml';
import * as v from 'valibot';
import {
  AdAccountSchema,
  BaseMetricSchema,
  MetricSchema,
  ReportSchema,
  SegmentSchema,
  type AdAccountEntry,
  type BaseMetricEntry,
  type MetricEntry,
  type ReportEntry,
  type SegmentEntry,
} from './schema.ts';

export type Path = (string | number)[];
/** One thing wrong with the file: where, and what. */
export type Problem = { path: Path; message: string; line?: number };

export const formatPath = (path: Path) =>
  path.map((key, i) => (typeof key === 'number' ? `[${key}]` : i === 0 ? key : `.${key}`)).join('');

/** `file:line: path: message`, as compilers print them, so editors and terminals link to the line. */
export const formatProblem = (file: string, problem: Problem) =>
  `${file}${problem.line ? `:${problem.line}` : ''}: ` +
  `${problem.path.length ? `${formatPath(problem.path)}: ` : ''}${problem.message}`;

/**
 * The file's entries, each checked on its own: of one that is not valid, the fields that are, so that the rest of
 * the file, and what can still be checked of that entry, is checked against the organization as well.
 */
export type CheckedFile = {
  adAccounts: Partial<AdAccountEntry>[];
  baseMetrics: Partial<BaseMetricEntry>[];
  metrics: Partial<MetricEntry>[];
  segments: Partial<SegmentEntry>[];
  reports: Partial<ReportEntry>[];
  /** The keys of the entries that are not valid: named elsewhere, they are not reported again as unknown. */
  invalid: Set<string>;
  /** The entries that hold only their valid fields. */
  partial: WeakSet<object>;
};

export type ReadFile =
  | { ok: true; config: CheckedFile; problems: Problem[]; lineOf: (path: Path) => number | undefined }
  | { ok: false; problems: Problem[] };

/**
 * docs/decisions.md §12: what apply reads at most. The YAML parser holds about a hundred bytes for each byte of its
 * source, so a file of 1 MB takes about 100 MB while it is read; a larger one is refused before it is parsed. An alias
 * may stand for a node at most MAX_ALIASES times (a small file of aliases to aliases would expand without end).
 */
export const MAX_FILE_CHARACTERS = 1024 * 1024;
/** The same limit on the bytes read: a file is read no further (docs/decisions.md §12). */
export const MAX_FILE_BYTES = 1024 * 1024;
export const MAX_ENTRIES = 10_000;
const MAX_ALIASES = 100;

/** The first words of the file `readout config export` writes (catalogue/export.ts). */
export const EXPORT_OPENING = '# The catalogue of organization ';
/**
 * Its last line. A pipe cut short between two entries leaves valid YAML with reports missing, which `apply --prune`
 * would delete: a file that opens as an export is applied only when this line closes it.
 */
export const EXPORT_CLOSING = '# End of the export: a file that lacks this line was cut short.';

/** An export whose closing line is missing, as a problem on its last line; nothing of it is applied. */
function cutShort(source: string): Problem | undefined {
  if (!source.startsWith(EXPORT_OPENING)) return undefined;
  const lines = source.trimEnd().split('\n');
  if (lines.at(-1)?.trimEnd() === EXPORT_CLOSING) return undefined;
  return {
    path: [],
    line: lines.length,
    message:
      `the file opens as a \`readout config export\` but lacks its closing line "${EXPORT_CLOSING}": it was cut ` +
      'short (a pipe or a copy that ended early); export it again',
  };
}

/** A file past those limits: refused whole, before anything of it is checked or written. */
export class FileTooLarge extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(message);
  }
}

const ENTRIES = {
  adAccounts: AdAccountSchema,
  baseMetrics: BaseMetricSchema,
  metrics: MetricSchema,
  segments: SegmentSchema,
  reports: ReportSchema,
};
/** The file's outline: the lists themselves, whatever their entries hold. */
const Outline = v.strictObject({
  $schema: v.optional(v.string()),
  ...(Object.fromEntries(Object.keys(ENTRIES).map((key) => [key, v.optional(v.array(v.unknown()), [])])) as Record<
    keyof typeof ENTRIES,
    v.OptionalSchema<v.ArraySchema<v.UnknownSchema, undefined>, []>
  >),
});

/** The fields of an entry that are valid on their own (defaults included); unknown keys are left out. */
function validFields(schema: (typeof ENTRIES)[keyof typeof ENTRIES], item: unknown): Record<string, unknown> {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return {};
  const fields: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(schema.pipe[0].entries)) {
    const parsed = v.safeParse(field as v.GenericSchema, (item as Record<string, unknown>)[key]);
    if (parsed.success && parsed.output !== undefined) fields[key] = parsed.output;
  }
  return fields;
}

/** What an entry that is not valid is still called, if anything. */
function keyOf(list: keyof typeof ENTRIES, item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const { name, platform, externalId } = item as Record<string, unknown>;
  if (list === 'adAccounts')
    return typeof platform === 'string' && typeof externalId === 'string'
      ? `${list}:${platform}/${externalId}`
      : undefined;
  return typeof name === 'string' ? `${list}:${name}` : undefined;
}

export function readConfig(source: string): ReadFile {
  if (source.length > MAX_FILE_CHARACTERS) {
    throw new FileTooLarge(
      `the file holds ${(source.length / 1024 / 1024).toFixed(1)} MB, more than the 1 MB apply reads; split it, or ` +
        `apply it in parts`,
    );
  }
  const cut = cutShort(source);
  if (cut) return { ok: false, problems: [cut] };
  const lines = new LineCounter();
  // uniqueKeys: a key given twice in one mapping is an error, not a silent last-wins.
  const doc = parseDocument(source, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length) {
    return {
      ok: false,
      problems: doc.errors.map((error) => ({
        path: [],
        line: lines.linePos(error.pos[0]).line,
        message: `not valid YAML: ${error.message.split('\n')[0]}`,
      })),
    };
  }
  /** The line of the deepest node the path reaches: a missing key is reported on its mapping's line. */
  const lineOf = (path: Path): number | undefined => {
    for (let depth = path.length; depth >= 0; depth--) {
      const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
      const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
      if (range) return lines.linePos(range[0]).line;
    }
    return undefined;
  };
  const located = (issues: v.BaseIssue<unknown>[], prefix: Path = []): Problem[] =>
    issues.map((issue) => {
      const path = [...prefix, ...(issue.path ?? []).map((item) => item.key as string | number)];
      return { path, line: lineOf(path), message: issueMessage(issue) };
    });
  // The entries are counted before any is built: each is an object, and its checks make more.
  let entries = 0;
  for (const list of Object.keys(ENTRIES)) {
    const node = doc.get(list, true) as { items?: unknown[]; range?: [number, number, number] } | undefined;
    entries += node?.items?.length ?? 0;
    if (entries > MAX_ENTRIES)
      throw new FileTooLarge(
        `${list}: more than ${MAX_ENTRIES.toLocaleString('en-US')} entries in the file; ` +
          'apply takes at most that many at once',
        node?.range ? lines.linePos(node.range[0]).line : undefined,
      );
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIASES }) ?? {};
  } catch (error) {
    // yaml's ReferenceError for an alias resolved too often: the file is built to expand past any memory.
    if (error instanceof ReferenceError)
      throw new FileTooLarge(
        `its aliases expand past ${MAX_ALIASES} uses of one node (${error.message.split('\n')[0]})`,
      );
    throw error;
  }
  if (Array.isArray(value))
    return {
      ok: false,
      problems: [
        {
          path: [],
          line: lineOf([]),
          message: 'must be a mapping (adAccounts, baseMetrics, metrics, segments, reports), got a list',
        },
      ],
    };
  const outline = v.safeParse(Outline, value, { abortEarly: false });
  if (!outline.success) return { ok: false, problems: located(outline.issues) };
  const problems: Problem[] = [];
  const invalid = new Set<string>();
  const partial = new WeakSet<object>();
  const check = <K extends keyof typeof ENTRIES>(list: K) =>
    outline.output[list].map((item, i) => {
      const entry = v.safeParse(ENTRIES[list], item, { abortEarly: false });
      if (entry.success) return entry.output;
      problems.push(...located(entry.issues, [list, i]));
      const key = keyOf(list, item);
      if (key) invalid.add(key);
      const fields = validFields(ENTRIES[list], item);
      partial.add(fields);
      return fields;
    });
  const config: CheckedFile = {
    adAccounts: check('adAccounts'),
    baseMetrics: check('baseMetrics'),
    metrics: check('metrics'),
    segments: check('segments'),
    reports: check('reports'),
    invalid,
    partial,
  };
  return { ok: true, config, problems, lineOf };
}
/** valibot's messages, in the file's words: an unknown key is named, an enumeration lists its values. */
function issueMessage(issue: v.BaseIssue<unknown>): string {
  if (issue.type === 'strict_object' && issue.expected === 'never')
    return `unknown key "${String(issue.path?.at(-1)?.key)}"`;
  if (issue.type === 'picklist')
    return (
      `must be one of ${(issue.expected ?? '').replace(/[()"]/g, '').split(' | ').join(', ')}, got ` +
      `${issue.received}`
    );
  if (issue.kind === 'schema' && issue.received === 'undefined') return 'is required';
  if (issue.kind === 'schema')
    return (
      `must be ` +
      `${issue.expected === 'Object' ? 'a mapping' : issue.expected === 'Array' ? 'a list' : `a ${issue.expected}`}, ` +
      `got ${issue.received}`
    );
  return issue.message;
}
