import type { ModeratorSynthesis } from '@roundtable/contracts';

/** The worksheet fields a handoff reads (whatever version the panel scored). */
export interface HandoffWorksheet {
  title: string;
  problem: string;
  target_user: string;
  solution: string;
}

/** Where a handed-on build came from: recorded on it, cited by its report. */
export interface HandoffSource {
  idea_id: string;
  version: number;
  panel_run_id: string;
  recommendation: ModeratorSynthesis['overall_recommendation'];
}

export interface BuildHandoff {
  objective: string;
  requirements: string[];
  source: HandoffSource;
}

/** Why a panel cannot be handed on: said to the person who asked, naming the way out. */
export class HandoffRefused extends Error {}

const clean = (s: string): string => s.trim().replace(/\s+/g, ' ').replace(/[.;:]+$/, '');

/**
 * A panel's verdict turned into a build's objective and requirements (issue 23's handoff). A GO
 * builds the worksheet's solution, and each of the moderator's top problems and risks becomes a
 * requirement the build must meet, so what the panel worried about is checked by the validator.
 * An ITERATE builds the cheapest test of the idea: the moderator's recommended experiment. A
 * NO-GO is not handed on. Pure: the api records the source with the run it submits.
 */
export function handoffToBuild(sheet: HandoffWorksheet, synthesis: ModeratorSynthesis, source: Omit<HandoffSource, 'recommendation'>): BuildHandoff {
  const recommendation = synthesis.overall_recommendation;
  const from = { ...source, recommendation };
  const problems = synthesis.top_problems.map((p) => `Address the panel's problem: ${clean(p)}`);
  const risks = synthesis.top_risks.map((r) => `Mitigate the panel's risk: ${clean(r)}`);
  if (recommendation === 'GO') {
    return {
      objective: `${clean(sheet.title)}: ${clean(sheet.solution)} — for ${clean(sheet.target_user)}, who ${clean(sheet.problem).replace(/^./, (c) => c.toLowerCase())}.`,
      requirements: [...problems, ...risks],
      source: from,
    };
  }
  if (recommendation === 'ITERATE') {
    return {
      objective: `Build the smallest thing that runs the panel's recommended experiment for "${clean(sheet.title)}": ${clean(synthesis.recommended_experiment)}.`,
      requirements: [
        `The experiment's result is recorded in a form that settles the panel's disagreement: ${clean(synthesis.biggest_disagreement)}`,
        ...problems,
      ],
      source: from,
    };
  }
  throw new HandoffRefused(
    `panel ${source.panel_run_id} said NO-GO on version ${source.version}: a NO-GO is not handed on; edit the worksheet (a new version) and run a panel on it`,
  );
}
