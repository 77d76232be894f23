// `readout config export` (docs/decisions.md §12): the organization's catalogue in the file format apply reads, so that
// applying it changes nothing. Defaults are left out where the file would give the same value.
import { Document, isScalar, isSeq, visit } from 'yaml';
import type { Queryable } from '../store/queries.ts';
import { EXPORT_CLOSING, EXPORT_OPENING } from './document.ts';
import { DEFAULT_UNIT, type ConfigFile } from './schema.ts';
import { readStored } from './state.ts';

const described = (description: string) => (description ? { description } : {});

export async function exportCatalogue(sql: Queryable, org: string, name: string): Promise<string> {
  const stored = await readStored(sql, org);
  const config: Omit<ConfigFile, '$schema'> = {
    adAccounts: stored.adAccounts.map((a) => ({
      platform: a.platform as ConfigFile['adAccounts'][number]['platform'],
      externalId: a.externalId,
      name: a.name,
      currency: a.currency,
      ...(a.timeZone === 'UTC' ? {} : { timeZone: a.timeZone }),
    })),
    baseMetrics: stored.baseMetrics.map((m) => ({
      name: m.name,
      displayName: m.displayName,
      kind: m.kind,
      ...(m.kind === 'count' && m.whole === false ? { whole: false } : {}),
      ...(m.conversionDerived ? { conversionDerived: true } : {}),
      ...described(m.description),
    })) as ConfigFile['baseMetrics'],
    metrics: stored.metrics.map((m) => ({
      name: m.name,
      displayName: m.displayName,
      kind: m.kind as keyof typeof DEFAULT_UNIT,
      ...(m.unit === DEFAULT_UNIT[m.kind as keyof typeof DEFAULT_UNIT] ? {} : { unit: m.unit }),
      ...described(m.description),
      formula: m.formula,
    })) as ConfigFile['metrics'],
    segments: stored.segments.map((s) => ({
      name: s.name,
      ...described(s.description),
      campaigns: s.campaigns,
    })) as ConfigFile['segments'],
    reports: stored.reports.map((r) => ({
      name: r.name,
      ...described(r.description),
      kind: r.kind,
      currency: r.currency,
      adAccounts: r.adAccounts,
      ...(r.segments.length ? { segments: r.segments } : {}),
      metrics: r.metrics,
      groupings: r.groupings,
    })) as ConfigFile['reports'],
  };
  const header = [
    `${EXPORT_OPENING}${JSON.stringify(name)} (${org}), as \`readout config export\` wrote it;`,
    '# its JSON Schema is spec/readout-config.schema.json in readout\'s source (docs/commands.md, "Reports as code").',
    `# Change it, then: readout apply --org ${org} --file FILE --dry-run`,
  ];
  // Lists of names stay on one line; entries are blocks, as people write them.
  const doc = new Document(config);
  visit(doc, {
    Seq(_, node) {
      if (isSeq(node) && node.items.every((item) => isScalar(item))) node.flow = true;
    },
  });
  return `${header.join('\n')}\n${doc.toString({ lineWidth: 0, flowCollectionPadding: false })}${EXPORT_CLOSING}\n`;
}
