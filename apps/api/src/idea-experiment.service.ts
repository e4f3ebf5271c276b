import type { DataSource } from 'typeorm';
import { parse as parseYaml } from 'yaml';
import { liftNestedProject } from '@roundtable/contracts';
import { IdeaEntity } from '@roundtable/persistence';
import { ApiError } from './api-error';
import type { ExperimentsService } from './experiments.service';
import { conflict, DONE, type Issue, panelRunOf } from './idea-handoff.service';
import { apiWorkflowOf } from './workflows/api-workflows';
import type { Submitter } from './team-scope';
import { ideaNotFound } from './team-owned';

/** What the idea and its panel give the experiment, so the request may not say it too. */
const FROM_THE_IDEA: Readonly<Record<string, string>> = {
  preregistration: "an idea's experiment is drafted from its panel's recommended experiment, then approved at its gate: leave preregistration out",
  draft_from: "draft_from is the idea's title and its panel's recommended experiment: leave it out",
  commit: "an idea's experiment is pinned to the repository's HEAD: leave commit out",
};

function invalidRequest(issues: Issue[]): ApiError {
  return ApiError.badRequest('invalid_experiment_request', issues.map((i) => `${i.path}: ${i.message}`).join('; '), { issues });
}

/** The body as a mapping: JSON, or YAML text as POST /v1/experiments takes it. */
function mappingOf(body: unknown): Record<string, unknown> {
  let raw = body;
  if (typeof body === 'string') {
    try {
      raw = parseYaml(body);
    } catch (e) {
      throw invalidRequest([{ path: '(body)', message: `malformed YAML: ${(e as Error).message.split('\n')[0]}` }]);
    }
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    throw invalidRequest([{ path: '(body)', message: 'the body is an experiment file without its preregistration (repo, providers, proposer, interpreter, critic, budget, domain), and panel_run_id if not the latest done panel' }]);
  }
  return liftNestedProject(raw as Record<string, unknown>);
}

/**
 * POST /v1/ideas/:id/experiment (issue 24): an idea's panel recommended the cheapest test that
 * would settle it; this makes that a drafted experiment — `draft_from` the idea's title and the
 * recommendation, its source the idea and the panel, pinned to the repository's HEAD — whose run
 * starts at once, so its proposer drafts the preregistration a person then approves at its gate.
 * The panel is found as a handoff finds it (idea-handoff.service panelRunOf); the rest of the file
 * is judged as any experiment file is (ExperimentsService.create).
 */
export class IdeaExperimentService {
  constructor(
    private readonly ds: DataSource,
    private readonly experiments: ExperimentsService,
  ) {}

  async draft(ideaId: string, body: unknown, by: Submitter): Promise<{ experiment_id: string; run_id: string }> {
    const { panel_run_id: asked, ...file } = mappingOf(body);
    const given = Object.keys(FROM_THE_IDEA).filter((k) => k in file);
    if (given.length) throw invalidRequest(given.map((k) => ({ path: k, message: FROM_THE_IDEA[k] })));
    if (asked !== undefined && typeof asked !== 'string') throw invalidRequest([{ path: 'panel_run_id', message: 'panel_run_id is a run id' }]);

    const idea = await this.ds.getRepository(IdeaEntity).findOneBy({ id: ideaId });
    if (!idea) throw ideaNotFound(ideaId);
    const panel = await panelRunOf(this.ds, ideaId, asked, { invalid: invalidRequest, purpose: 'draft an experiment from', sees: by.sees });
    if (panel.status !== DONE) {
      throw conflict('run_not_done', `panel run ${panel.id} is ${panel.status}: only a done panel's recommended experiment is drafted; wait for it to finish`, { status: panel.status });
    }
    const verdict = apiWorkflowOf(panel).verdictOf(panel);
    const recommended = verdict?.synthesis.recommended_experiment;
    if (!verdict || verdict.partial || !recommended) {
      throw conflict('no_recommended_experiment', `panel run ${panel.id} has ${verdict?.partial ? 'only a partial synthesis (written after a halt)' : 'no moderator synthesis with a recommended experiment'}: there is nothing to draft; resume it or run a panel again`);
    }
    const created = await this.experiments.create(
      { workflow: 'experiment', project: ideaId, ...file, draft_from: `${idea.title}: ${recommended}` },
      by,
      { idea_id: ideaId, panel_run_id: panel.id },
    );
    return { experiment_id: created.id, run_id: created.runId! };
  }
}
