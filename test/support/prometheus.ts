/**
 * Reading GET /metrics the way Prometheus does: the text is parsed by `parse-prometheus-text-format`
 * (a port of the Prometheus Python client's parser), then looked up by name and labels.
 *
 * That parser folds every series of a histogram family into one (labels other than `le` are
 * lost), so histogram series are read a second way: the same text with the histogram `# TYPE`
 * lines left out, where `<name>_count` / `_sum` / `_bucket` parse as plain labelled samples.
 */
import parsePrometheusTextFormat from 'parse-prometheus-text-format';

export interface ParsedSample {
  value?: string;
  labels?: Record<string, string>;
  buckets?: Record<string, string>;
  count?: string;
  sum?: string;
}
export interface ParsedFamily {
  name: string;
  help: string;
  type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
  metrics: ParsedSample[];
}

const parse = parsePrometheusTextFormat as unknown as (t: string) => ParsedFamily[];

/** Families by name (types from `# TYPE`), plus untyped `<histogram>_count`/`_sum`/`_bucket` families. */
export function parseMetrics(text: string): Map<string, ParsedFamily> {
  const byName = new Map(parse(text).map((f) => [f.name, f]));
  const untypedHistograms = text.replace(/^# TYPE \S+ histogram$/gm, '');
  // prom-client writes each series' buckets, sum and count together, so `<name>_count` recurs
  // once per series: merge the repeats.
  const untyped = new Map<string, ParsedFamily>();
  for (const f of parse(untypedHistograms)) {
    if (byName.has(f.name)) continue;
    const seen = untyped.get(f.name);
    if (seen) seen.metrics.push(...f.metrics);
    else untyped.set(f.name, f);
  }
  for (const [name, f] of untyped) byName.set(name, f);
  return byName;
}

const matches = (s: ParsedSample, labels: Record<string, string>) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v);

/** Value of a counter/gauge sample with (at least) these labels; 0 when absent. */
export function sampleValue(families: Map<string, ParsedFamily>, name: string, labels: Record<string, string> = {}): number {
  const s = families.get(name)?.metrics.find((m) => matches(m, labels));
  return s?.value === undefined ? 0 : Number(s.value);
}

/** Observation count of the histogram series with (at least) these labels; 0 when absent. */
export function histogramCount(families: Map<string, ParsedFamily>, name: string, labels: Record<string, string> = {}): number {
  return sampleValue(families, `${name}_count`, labels);
}
