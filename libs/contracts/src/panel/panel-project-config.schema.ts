import { z } from 'zod';
import { AgentConfig, BudgetConfig, ProjectConfig } from '../config/project-config.schema';
import { Idea } from './idea.schema';
import { JudgeRole } from './panel-vocabulary.schema';

/**
 * A clean panel is 5 verdicts + 5 × rounds debate turns + 5 re-votes + 1 moderator call
 * (26 at the default three rounds), before retries and repairs: the build's default of 16
 * calls would halt every panel, so the panel has its own defaults. Same caps, same checks.
 */
export const PANEL_DEFAULT_MAX_CALLS = 40;
export const PANEL_DEFAULT_MAX_TOKENS = 400_000;

export const PanelBudgetConfig = BudgetConfig.extend({
  max_calls: z.number().int().positive().default(PANEL_DEFAULT_MAX_CALLS),
  max_tokens: z.number().int().positive().default(PANEL_DEFAULT_MAX_TOKENS),
});
export type PanelBudgetConfig = z.infer<typeof PanelBudgetConfig>;

export const PanelJudgesConfig = z
  .object(Object.fromEntries(JudgeRole.options.map((j) => [j, AgentConfig])) as Record<JudgeRole, typeof AgentConfig>)
  .strict();
export type PanelJudgesConfig = z.infer<typeof PanelJudgesConfig>;

/** The project file of a `workflow: panel` run; loadAnyProjectConfig dispatches on `workflow`. */
export const PanelProjectConfig = z
  .object({
    workflow: z.literal('panel'),
    project: z.string().min(1, 'project names the project (e.g. panel-demo)'),
    idea: Idea,
    judges: PanelJudgesConfig,
    moderator: AgentConfig,
    providers: ProjectConfig.shape.providers,
    budget: PanelBudgetConfig.default(PanelBudgetConfig.parse({})),
    /** Full rounds of the fixed-order debate; 0 skips the debate. */
    max_debate_rounds: z.number().int().min(0).max(10).default(3),
    revote: z.boolean().default(true),
  })
  .strict();
export type PanelProjectConfig = z.infer<typeof PanelProjectConfig>;
export type PanelProjectConfigInput = z.input<typeof PanelProjectConfig>;
