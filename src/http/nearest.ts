// The names a mistyped one most likely meant, for the errors that name what is known (parameters, metrics, fields,
// commands, flags): a suggestion is the fix a caller would otherwise look up.

/** Edit distance, case aside, counting a swap of two neighbours as one edit (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let before: number[] = [];
  let previous = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const current = [i];
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) best = Math.min(best, before[j - 2] + 1);
      current.push(best);
    }
    before = previous;
    previous = current;
  }
  return previous[t.length];
}

/**
 * The known names within a few edits of name (a third of its length, at least one, at most three), nearest first,
 * at most `limit`; a name that differs only in case comes first.
 */
export function nearest(name: string, known: Iterable<string>, limit = 3): string[] {
  const most = Math.min(3, Math.max(1, Math.floor(name.length / 3)));
  const near: { candidate: string; distance: number }[] = [];
  for (const candidate of new Set(known)) {
    if (candidate === name) continue;
    const distance = candidate.toLowerCase() === name.toLowerCase() ? -1 : editDistance(name, candidate);
    if (distance <= most) near.push({ candidate, distance });
  }
  return near
    .sort((x, y) => x.distance - y.distance || x.candidate.localeCompare(y.candidate))
    .slice(0, limit)
    .map((x) => x.candidate);
}

/** `did you mean a?`, `did you mean a or b?`, or '' when nothing is near. */
export function didYouMean(name: string, known: Iterable<string>): string {
  const near = nearest(name, known);
  if (!near.length) return '';
  const list = near.length === 1 ? near[0] : `${near.slice(0, -1).join(', ')} or ${near.at(-1)}`;
  const caseOnly = near[0].toLowerCase() === name.toLowerCase() ? ' (names are case-sensitive)' : '';
  return `did you mean ${list}?${caseOnly}`;
}
