/**
 * The approval expiry sweep of one instance: every `tickMs` (default 1 s) pending approvals whose
 * `expires_at` passed are rejected with reason `timed out` (./approval-service.ts `sweep`). Every
 * instance sweeps; the conditional decision makes each expiry count once.
 */
import type { ApprovalService } from './approval-service.js';

export class ApprovalSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly service: ApprovalService,
    private readonly tickMs = 1000,
    private readonly log?: { error: (o: object, m?: string) => void },
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running = this.running.then(() => this.service.sweep()).catch((err) => this.log?.error({ err }, 'approval sweep failed'));
    }, this.tickMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
