/** The shape of the generated-client program in usage-source.ts (for typing its dynamic import). */
export interface Outcome {
  createdStatus: number;
  id: string;
  eventsLink: string;
  gotStatus: string;
  cancelledStatus: string;
  missingStatus: number;
  missingCode: string;
  invalidStatus: number;
  invalidCode: string;
  scheduleStatus: number;
  scheduleMetadata: unknown;
}

export declare function createGetCancel(baseUrl: string, token: string): Promise<Outcome>;

export interface ApprovalOutcome {
  waitingStatus: string;
  pendingCallId: string;
  pendingLabel: string | null;
  decidedStatus: string;
  conflictStatus: number;
  conflictCode: string;
  finalStatus: string;
  listed: string[];
}

export declare function approveFlow(baseUrl: string, token: string): Promise<ApprovalOutcome>;
