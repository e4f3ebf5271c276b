import { z } from 'zod';
import { PanelRecommendation } from '../panel/panel-vocabulary.schema';

/**
 * Where a handed-on build came from (issue 23's handoff), kept on the build's run row
 * (`runs.handed_off_from`): the idea, the worksheet version the panel scored, the panel run and
 * what its moderator recommended. GET /v1/runs/:id shows it and the build's report cites it.
 */
export const HandedOffFrom = z.object({
  idea_id: z.string(),
  version: z.number().int(),
  panel_run_id: z.string(),
  recommendation: PanelRecommendation,
});
export type HandedOffFrom = z.infer<typeof HandedOffFrom>;

/**
 * POST /v1/ideas/:id/handoff: the panel to hand on (default the idea's latest done panel) and the
 * build's project file without its objective and requirements, which the panel's synthesis gives.
 */
export const HandoffRequest = z
  .object({
    panel_run_id: z.string().min(1).optional().describe("the panel run to hand on; default the idea's latest done panel"),
    build: z
      .record(z.string(), z.unknown())
      .describe('a build project file without objective and requirements: providers, agents, budget, repo, test_command …; judged like any submission'),
  })
  .strict();
export type HandoffRequest = z.infer<typeof HandoffRequest>;

/** A build made from an idea, as GET /v1/ideas/:id lists it. */
export const IdeaHandoff = HandedOffFrom.omit({ idea_id: true }).extend({ run_id: z.string(), status: z.string(), created_at: z.string() });
export type IdeaHandoff = z.infer<typeof IdeaHandoff>;
