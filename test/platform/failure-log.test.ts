/** FailureLog (src/failure-log.ts): a run of failures is logged once, summarized once a minute, and its end once. */
import { describe, expect, it } from 'vitest';
import { FailureLog } from '../../src/failure-log.js';

function recorder() {
  const lines: { level: string; msg: string; obj: Record<string, unknown> }[] = [];
  const at = (level: string) => (obj: object, msg?: string) => void lines.push({ level, msg: msg ?? '', obj: obj as Record<string, unknown> });
  return { lines, log: { error: at('error'), warn: at('warn'), info: at('info') } };
}

describe('FailureLog', () => {
  it('logs the first failure, each different error once, a summary per interval, and recovered once', () => {
    const { lines, log } = recorder();
    let now = 0;
    const f = new FailureLog(log, 'scheduler tick', { now: () => now });
    const refused = new Error('connect ECONNREFUSED');
    for (let i = 0; i < 59; i++, now += 1000) f.failed(refused);
    expect(lines.map((l) => l.msg)).toEqual(['scheduler tick failed']);
    f.failed(new Error('timeout exceeded when trying to connect'));
    expect(lines.map((l) => l.msg)).toEqual(['scheduler tick failed', 'scheduler tick failed']);
    now += 2000;
    f.failed(refused); // 61 s after the first
    expect(lines.at(-1)).toMatchObject({ level: 'error', msg: 'scheduler tick still failing after 61 attempts', obj: { attempts: 61, error: 'connect ECONNREFUSED' } });
    f.failed(refused);
    expect(lines).toHaveLength(3);
    f.succeeded();
    f.succeeded();
    expect(lines.at(-1)).toMatchObject({ level: 'info', msg: 'scheduler tick recovered after 62 failed attempts' });
    expect(lines).toHaveLength(4);
    f.failed(refused); // a new run of failures starts over
    expect(lines.at(-1)).toMatchObject({ msg: 'scheduler tick failed', obj: { attempts: 1 } });
  });

  it('neither counts nor logs an error saying the service is stopping (code shutting_down), so no recovered line follows it', () => {
    const { lines, log } = recorder();
    const f = new FailureLog(log, 'claiming turns');
    f.failed(Object.assign(new Error('this service no longer owns DATA_DIR /d and is stopping'), { code: 'shutting_down' }));
    f.succeeded();
    expect(lines).toEqual([]);
    expect(f.attempts).toBe(0);
  });

  it('logs at warn when asked', () => {
    const { lines, log } = recorder();
    new FailureLog(log, 'renewing workflow leases', { level: 'warn' }).failed(new Error('x'));
    expect(lines[0]).toMatchObject({ level: 'warn', msg: 'renewing workflow leases failed' });
  });
});
