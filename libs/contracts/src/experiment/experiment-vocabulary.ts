import { z } from 'zod';

/**
 * The experiment workflow's names (issue 24). A drafted experiment starts at DRAFT (the
 * proposer writes a preregistration) and waits at LOCK for a person; a preregistered one starts
 * at RUN. RUN is the method's command in the sandbox at the pinned commit, INTERPRET the
 * interpreter's reading of each criterion, REVIEW the critic's review of that reading; the
 * decision is code's. INIT, REVIEW, DONE and HALTED mean what they mean for the other workflows.
 */
export const EXPERIMENT_ONLY_STAGES = ['DRAFT', 'LOCK', 'RUN', 'INTERPRET'] as const;
export const ExperimentStage = z.enum(['INIT', ...EXPERIMENT_ONLY_STAGES, 'REVIEW', 'DONE', 'HALTED']);
export type ExperimentStage = z.infer<typeof ExperimentStage>;

/** proposer: drafts a preregistration; interpreter: reads the criteria (and closes); critic: reviews the reading, author-blind. */
export const ExperimentRole = z.enum(['proposer', 'interpreter', 'critic']);
export type ExperimentRole = z.infer<typeof ExperimentRole>;

/** The one gate of an experiment: a drafted preregistration is locked only when a person approves it. */
export const PREREGISTRATION_GATE = 'preregistration';
