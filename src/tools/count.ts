/**
 * Counted nouns for tool activity labels: `count(1, 'line')` → `"1 line"`, `count(3, 'line')` →
 * `"3 lines"`, `count(2, 'entry', 'entries')` → `"2 entries"`. English rule: singular for exactly
 * 1, plural otherwise (also 0). `plural` defaults to `singular + 's'`.
 */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
