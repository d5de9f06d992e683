/**
 * Plain-text renderings of schedules and runs for function_call_output (what the model reads).
 */
import type { Schedule, ScheduleRun } from '../../schedules/types.js';
import { formatNextRun, quoted, zoneOf } from './labels.js';
import { keepHead } from '../../runtime/text-cut.js';

const MAX_INPUT_CHARS = 400;

export function whenText(s: Pick<Schedule, 'when'>): string {
  const w = s.when;
  if ('cron' in w) return `cron "${w.cron}" in ${w.timezone}`;
  if ('at' in w) return `once at ${w.at}`;
  return `once, ${w.after.value} ${w.after.unit}(s) after it was set`;
}

function inputText(s: Schedule): string {
  const text = typeof s.input === 'string' ? s.input : s.input.map((m) => `${m.role}: ${m.content}`).join('\n');
  return text.length > MAX_INPUT_CHARS ? `${keepHead(text, MAX_INPUT_CHARS)}… (${text.length} characters)` : text;
}

/** One line: `- <id> “name” — active, cron "0 9 * * *" in Europe/Berlin, next run Mon 09:00`. */
export function scheduleLine(s: Schedule, now: number): string {
  const next = formatNextRun(s, now);
  return `- ${s.id} ${quoted(s.name)} — ${s.status}, ${whenText(s)}${next ? `, next run ${next} (${s.next_run_at})` : ''}`;
}

/** Several lines describing one schedule in full. */
export function scheduleText(s: Schedule, now: number): string {
  const next = formatNextRun(s, now, { zone: false });
  return [
    `Schedule ${s.id} ${quoted(s.name)} — ${s.status}`,
    `when: ${whenText(s)}`,
    `next run: ${next ? `${s.next_run_at} (${next} ${zoneOf(s.when)})` : s.status === 'paused' ? 'none while paused' : 'none'}`,
    `last run: ${s.last_run_at ?? 'never'} (${s.run_count} run${s.run_count === 1 ? '' : 's'} so far)`,
    `tools: ${s.tools.length ? s.tools.join(', ') : '(none)'}`,
    `input: ${inputText(s)}`,
    ...(s.instructions ? [`instructions: ${s.instructions.length > MAX_INPUT_CHARS ? `${keepHead(s.instructions, MAX_INPUT_CHARS)}…` : s.instructions}`] : []),
  ].join('\n');
}

/** `- slot 2026-11-30T08:00:00.000Z: started turn <id> (completed); 2 missed slots folded in`. */
export function runLine(r: ScheduleRun): string {
  const what =
    r.status === 'started'
      ? `started turn ${r.turn_id}${r.turn_status ? ` (${r.turn_status})` : ''}`
      : r.status === 'failed'
        ? `failed to start: ${r.error?.message ?? 'unknown error'}`
        : 'claimed, turn not started yet';
  return `- slot ${r.slot_at}: ${what}${r.missed_slots ? `; ${r.missed_slots} missed slot(s) folded into this run` : ''}`;
}
