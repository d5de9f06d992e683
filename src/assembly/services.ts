/**
 * Control-plane services a family creator may need, passed in per turn (no singletons).
 * Each family's issue adds its own optional member here; a creator whose service is absent reports
 * the family as unavailable instead of failing.
 */
export interface ServiceRegistry {
  // schedules?: ScheduleService;     (added by the schedules issue)
  // workflows?: WorkflowService;     (added by the workflows issue)
  // brain?: BrainStore;              (added by the workflows issue)
  [name: string]: unknown;
}
