import { z } from 'zod';

/** Stages of the build workflow (seed §8). Persisted in runs.stage; never rename casually. */
export const Stage = z.enum([
  'INIT',
  'PROPOSE',
  'CRITIQUE',
  'REVISE',
  'IMPLEMENT',
  'TEST',
  'FIX',
  'REVIEW',
  'SYNTHESIZE',
  /** Merging the run branch into the original repository (after the merge gate, or at autonomy 3). */
  'MERGE',
  'DONE',
  'HALTED',
]);
export type Stage = z.infer<typeof Stage>;

/** What a client sees in GET /v1/runs/:id. `awaiting_approval`: waiting at a gate for a person (not terminal; holds no worker). */
export const RunStatus = z.enum(['queued', 'running', 'awaiting_approval', 'done', 'halted', 'needs_input', 'cancelled', 'failed']);
export type RunStatus = z.infer<typeof RunStatus>;
export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ['done', 'halted', 'needs_input', 'cancelled', 'failed'];

/**
 * The build's roles. `reviewer` is the optional second review (seed §4): a role like the others
 * (its calls are agent_calls rows with their own role, filterable, with its own prompt), but a
 * project need not name an agent for it (project-config.schema.ts OPTIONAL_BUILD_ROLES).
 */
export const BuildRole = z.enum(['proposer', 'critic', 'reviser', 'engineer', 'validator', 'reviewer', 'synthesizer']);
export type BuildRole = z.infer<typeof BuildRole>;

export const AgentCallStatus = z.enum(['queued', 'running', 'completed', 'failed']);
export type AgentCallStatus = z.infer<typeof AgentCallStatus>;
