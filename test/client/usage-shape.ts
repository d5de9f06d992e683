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
