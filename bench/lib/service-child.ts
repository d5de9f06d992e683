/**
 * The bench service in a process of its own (bench/lib/service-process.ts starts it with
 * `--expose-gc`): starts {@link startBenchService} against `BENCH_MODEL_URL` with the JSON env
 * overrides in `BENCH_SERVICE_ENV`, sends `{ url }` on IPC, then answers requests
 * `{ id, op, ids? }` with `{ id, result }`:
 * - `lastSeqs` (`ids`: turn ids) → the stored last seq of each turn, in order;
 * - `mark` → starts a measurement (event-loop utilization and CPU time from here);
 * - `measure` → `{ elu, cpuMs }` since the last mark (elu 0..1, CPU ms of this process);
 * - `rssAfterGc` → resident set size after three full GCs (MB);
 * - `close` → stops the service and exits.
 */
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { startBenchService } from './bench-service.js';
import { cpuMs } from './stats.js';

const gc = (globalThis as { gc?: () => void }).gc;
const svc = await startBenchService(process.env.BENCH_MODEL_URL!, JSON.parse(process.env.BENCH_SERVICE_ENV ?? '{}'));
let elu0: EventLoopUtilization = performance.eventLoopUtilization();
let cpu0 = cpuMs();

async function answer(op: string, ids: string[] = []): Promise<unknown> {
  switch (op) {
    case 'lastSeqs':
      return Promise.all(ids.map((id) => svc.services.eventLog.lastSeq(id)));
    case 'mark':
      elu0 = performance.eventLoopUtilization();
      cpu0 = cpuMs();
      return null;
    case 'measure':
      return { elu: performance.eventLoopUtilization(elu0).utilization, cpuMs: cpuMs() - cpu0 };
    case 'rssAfterGc':
      for (let i = 0; i < 3; i++) {
        gc?.();
        await sleep(50);
      }
      return process.memoryUsage().rss / 2 ** 20;
    case 'close':
      await svc.close();
      setImmediate(() => process.exit(0));
      return null;
    default:
      throw new Error(`unknown op ${op}`);
  }
}

process.on('message', (m: { id: number; op: string; ids?: string[] }) => {
  void answer(m.op, m.ids).then(
    (result) => process.send!({ id: m.id, result }),
    (err: unknown) => process.send!({ id: m.id, error: String(err) }),
  );
});
process.send!({ url: svc.url });
