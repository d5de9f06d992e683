/**
 * Shared figures for the benches: medians and percentiles, this process's CPU time, and the
 * machine's load average (printed by every bench, so a figure can be read against how busy the
 * machine was).
 */
import os from 'node:os';

/** Median of `xs` (NaN when empty). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The `p`th percentile (0..100, nearest rank) of `xs` (NaN when empty). */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** CPU time (user + system) this process has used so far, ms. */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** `load average 1.23 0.98 0.75 (1/5/15 min) on 2 cores` — print it with every bench. */
export function loadLine(): string {
  const [a, b, c] = os.loadavg();
  return `load average ${a.toFixed(2)} ${b.toFixed(2)} ${c.toFixed(2)} (1/5/15 min) on ${os.cpus().length} cores`;
}

/** `x.toFixed(digits)`. */
export const f = (x: number, digits = 3): string => x.toFixed(digits);
