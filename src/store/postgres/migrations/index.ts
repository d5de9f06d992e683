/**
 * Every Postgres schema migration (see ../migrate.ts). Versions are reserved per feature and may
 * land out of order (the migrator applies each unapplied one); never change one that has shipped.
 */
import type { Migration } from '../migrate.js';
import { schedules } from './001-schedules.js';
import { workflows } from './002-workflows.js';
import { brain } from './003-brain.js';
import { turns } from './004-turns.js';
import { approvals } from './005-approvals.js';
import { turnInputs } from './006-turn-inputs.js';
import { backgroundJobs } from './007-background-jobs.js';
import { idempotencyKeys } from './008-idempotency-keys.js';
import { workflowLeases } from './009-workflow-leases.js';
import { webhooks } from './010-webhooks.js';
import { jobPendingApprovals } from './012-job-pending-approvals.js';
import { turnInputClosures } from './015-turn-input-closures.js';
import { turnContinuationsIndex } from './016-turn-continuations-index.js';
import { sharedSkills } from './017-shared-skills.js';
import { replyAttachments } from './018-reply-attachments.js';
import { turnLeaseEpochs } from './019-turn-lease-epochs.js';
import { workflowLeaseEpochs } from './020-workflow-lease-epochs.js';
import { jobSkills } from './021-job-skills.js';

export const MIGRATIONS: readonly Migration[] = [schedules, workflows, brain, turns, approvals, turnInputs, backgroundJobs, idempotencyKeys, workflowLeases, webhooks, jobPendingApprovals, turnInputClosures, turnContinuationsIndex, sharedSkills, replyAttachments, turnLeaseEpochs, workflowLeaseEpochs, jobSkills];
