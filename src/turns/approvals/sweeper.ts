/**
 * The approval expiry sweep of one instance: every `tickMs` (default 1 s) pending approvals whose
 * `expires_at` passed are rejected with reason `timed out` (./approval-service.ts `sweep`). Every
 * instance sweeps; the conditional decision makes each expiry count once.
 */
import { FailureLog, type FailureLogger } from '../../failure-log.js';
import type { ApprovalService } from './approval-service.js';

export class ApprovalSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  /** Failed sweeps (an outage): logged once, then summarized (src/failure-log.ts). */
  private readonly failures: FailureLog;

  constructor(
    private readonly service: ApprovalService,
    private readonly tickMs = 1000,
    log?: FailureLogger,
  ) {
    this.failures = new FailureLog(log, 'approval sweep');
  }

  start(): void {
    this.timer = setInterval(() => {
      this.running = this.running.then(() => this.service.sweep()).then(
        () => this.failures.succeeded(),
        (err) => this.failures.failed(err),
      );
    }, this.tickMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
