import { z } from 'zod';
import { EXPERIMENT_ONLY_STAGES } from '../experiment/experiment-vocabulary';
import { Stage } from '../run/run-vocabulary';

/**
 * The panel workflow's names (seed 003). Judge names are role names in agent_calls.role and
 * keys of the replay cassette, and the order below is the fixed debate speaker order: the
 * code, never a model, picks the next speaker from it.
 */
export const JudgeRole = z.enum(['vc', 'engineer', 'pm', 'customer', 'competitor']);
export type JudgeRole = z.infer<typeof JudgeRole>;
export const JUDGES: readonly JudgeRole[] = JudgeRole.options;

export const PanelRole = z.enum([...JudgeRole.options, 'moderator']);
export type PanelRole = z.infer<typeof PanelRole>;

/**
 * Stages of the panel workflow. Persisted in runs.stage next to the build's stages; INIT,
 * DONE and HALTED mean the same in both. APPEAL is only ever the stage of an appeal's agent
 * calls: the run itself stays DONE while an appeal runs.
 */
const PANEL_ONLY_STAGES = ['ROAST', 'DEBATE', 'REVOTE', 'MODERATE', 'APPEAL'] as const;
export const PanelStage = z.enum(['INIT', ...PANEL_ONLY_STAGES, 'DONE', 'HALTED']);
export type PanelStage = z.infer<typeof PanelStage>;

/** Any workflow's stage: what runs.stage and a stage_changed event may hold. */
export const RunStage = z.enum([...Stage.options, ...PANEL_ONLY_STAGES, ...EXPERIMENT_ONLY_STAGES]);
export type RunStage = z.infer<typeof RunStage>;

/** A judge's score: an integer from 1 (kill it) to 10 (fund it now). */
export const JudgeScore = z.number().int('a score is a whole number from 1 to 10').min(1, 'a score is from 1 to 10').max(10, 'a score is from 1 to 10');
export type JudgeScore = z.infer<typeof JudgeScore>;

export const PanelRecommendation = z.enum(['GO', 'ITERATE', 'NO-GO']);
export type PanelRecommendation = z.infer<typeof PanelRecommendation>;
