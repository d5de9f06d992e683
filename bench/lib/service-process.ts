/**
 * Start the bench service (bench/lib/bench-service.ts) in a child process, as it runs in
 * production: on its own event loop, apart from the bench's clients and scripted model, which
 * would otherwise take turns on the service's loop and be counted as the service's latency.
 * The child (bench/lib/service-child.ts) runs with `--expose-gc` and answers over IPC.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface ServiceProcess {
  url: string;
  pid: number;
  /** The stored last seq of each turn (0 for an unknown turn). */
  lastSeqs(ids: string[]): Promise<number[]>;
  /** Start a measurement of the child's event loop and CPU. */
  mark(): Promise<void>;
  /** Since the last mark: event-loop utilization (0..1) and CPU time (ms) of the service process. */
  measure(): Promise<{ elu: number; cpuMs: number }>;
  /** The service process's RSS after three full GCs, MB. */
  rssAfterGc(): Promise<number>;
  close(): Promise<void>;
}

/** Fork the service against `modelBaseURL` with `env` overrides; resolves once it listens. */
export async function startServiceProcess(modelBaseURL: string, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const child = fork(fileURLToPath(new URL('./service-child.ts', import.meta.url)), [], {
    execArgv: ['--expose-gc', '--import', 'tsx'],
    env: { ...process.env, BENCH_MODEL_URL: modelBaseURL, BENCH_SERVICE_ENV: JSON.stringify(env) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let next = 0;
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the bench service exited with ${code} before listening`)));
    child.on('message', (m: { url?: string; id?: number; result?: unknown; error?: string }) => {
      if (m.url) return resolve(m.url);
      const w = waiting.get(m.id!);
      waiting.delete(m.id!);
      if (m.error) w?.reject(new Error(m.error));
      else w?.resolve(m.result);
    });
  });
  const ask = <T>(op: string, ids?: string[]) =>
    new Promise<T>((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.send({ id, op, ids });
    });
  return {
    url,
    pid: child.pid!,
    lastSeqs: (ids) => ask<number[]>('lastSeqs', ids),
    mark: () => ask<void>('mark'),
    measure: () => ask<{ elu: number; cpuMs: number }>('measure'),
    rssAfterGc: () => ask<number>('rssAfterGc'),
    async close() {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      await ask('close').catch(() => undefined);
      await exited;
    },
  };
}
