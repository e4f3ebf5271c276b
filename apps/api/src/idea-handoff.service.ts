import type { DataSource } from 'typeorm';
import { type HandedOffRun, HandoffRequest, liftNestedProject, RunStatus } from '@roundtable/contracts';
import { IdeaEntity, IdeaVersionEntity, RunEntity } from '@roundtable/persistence';
import { handoffToBuild, HandoffRefused } from '@roundtable/workflow';
import { ApiError } from './api-error';
import type { RunSubmissionService } from './run-submission.service';
import { mayReach, type Submitter, type TeamScope } from './team-scope';
import { ideaNotFound } from './team-owned';
import { apiWorkflowOf } from './workflows/api-workflows';

export type Issue = { path: string; message: string };

/** Only a panel that has finished has a synthesis to hand on. */
export const DONE = RunStatus.enum.done;

/** What the panel's synthesis gives the build, so the build part may not say it too. */
const FROM_THE_PANEL: Readonly<Record<string, string>> = {
  objective: "the build's objective comes from the panel's synthesis",
  requirements: "the build's requirements come from the panel's synthesis",
  workflow: 'a handoff makes a build run: leave workflow out',
  idea: 'a build judges no idea: leave it out',
  idea_ref: 'a build judges no idea: leave it out',
};

function invalidHandoff(issues: Issue[]): ApiError {
  return ApiError.badRequest('invalid_handoff_request', issues.map((i) => `${i.path}: ${i.message}`).join('; '), { issues });
}

export const conflict = (error: string, message: string, extra: Record<string, unknown> = {}) => new ApiError(409, { error, message, ...extra });

/**
 * Handoff (issue 23): a done panel's GO (or an ITERATE's recommended experiment) handed on as a
 * build. The objective and requirements come from the pure mapping (libs/workflow handoffToBuild)
 * of the worksheet version the panel scored and its moderator's synthesis, read through the api's
 * workflow registry; the rest of the build comes from the request's `build` part and is submitted
 * like any project, so the same schema and operator policy judge it (a 400 names the field, under
 * `build.`). The source rides on the new run's row (`handed_off_from`) in the submission's
 * transaction: GET /v1/runs/:id shows it, the build's report links back, the idea lists it.
 */
export class IdeaHandoffService {
  constructor(
    private readonly ds: DataSource,
    private readonly submission: RunSubmissionService,
  ) {}

  async handoff(ideaId: string, body: unknown, by: Submitter): Promise<HandedOffRun> {
    const parsed = HandoffRequest.safeParse(body ?? undefined);
    if (!parsed.success) throw invalidHandoff(parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.') || '(body)', message: i.message })));
    const req = parsed.data;
    const build = liftNestedProject(req.build);
    const given = Object.keys(FROM_THE_PANEL).filter((k) => k in build);
    if (given.length) throw invalidHandoff(given.map((k) => ({ path: `build.${k}`, message: FROM_THE_PANEL[k] })));

    if (!(await this.ds.getRepository(IdeaEntity).existsBy({ id: ideaId }))) throw ideaNotFound(ideaId);
    const panel = await panelRunOf(this.ds, ideaId, req.panel_run_id, { invalid: invalidHandoff, purpose: 'hand on', sees: by.sees });
    if (panel.status !== DONE) {
      throw conflict('run_not_done', `panel run ${panel.id} is ${panel.status}: only a done panel's synthesis is handed on; wait for it to finish`, { status: panel.status });
    }
    const verdict = apiWorkflowOf(panel).verdictOf(panel);
    if (!verdict || verdict.partial) {
      throw conflict('no_synthesis', `panel run ${panel.id} has ${verdict ? 'only a partial synthesis (written after a halt)' : 'no moderator synthesis'}: there is no verdict to hand on; resume it or run a panel again`);
    }
    const version = panel.ideaVersion!;
    const row = await this.ds.getRepository(IdeaVersionEntity).findOneByOrFail({ ideaId, version });
    let handoff;
    try {
      handoff = handoffToBuild(row.worksheet, verdict.synthesis, { idea_id: ideaId, version, panel_run_id: panel.id });
    } catch (e) {
      if (e instanceof HandoffRefused) throw conflict('handoff_refused', e.message, { recommendation: verdict.synthesis.overall_recommendation });
      throw e;
    }
    const config = { project: ideaId, ...build, objective: handoff.objective, requirements: handoff.requirements };
    let submitted;
    try {
      submitted = await this.submission.submit(config, { submittedBy: by.name, team: by.team, sees: by.sees, handoff: handoff.source });
    } catch (e) {
      throw underBuild(e);
    }
    return { ...submitted, handed_off_from: handoff.source, objective: handoff.objective, requirements: handoff.requirements };
  }
}

/**
 * The panel asked for, which must be one run on this idea; else the idea's latest done panel.
 * `invalid` makes the 400 for a wrong panel_run_id in the caller's words; `purpose` says what the
 * panel was wanted for in the 409 when there is none. Only runs of the team the caller sees
 * (`sees`) count: another team's panel_run_id reads as no run at all.
 */
export async function panelRunOf(
  ds: DataSource,
  ideaId: string,
  asked: string | undefined,
  { invalid, purpose, sees }: { invalid: (issues: Issue[]) => ApiError; purpose: string; sees: TeamScope },
): Promise<RunEntity> {
  const runs = ds.getRepository(RunEntity);
  if (asked !== undefined) {
    const found = await runs.findOneBy({ id: asked });
    const run = found && mayReach(sees, found.team) ? found : null;
    if (!run || run.ideaId !== ideaId) {
      throw invalid([{ path: 'panel_run_id', message: run ? `run ${asked} is not a panel on idea ${ideaId}` : `no run ${asked}` }]);
    }
    return run;
  }
  const latest = await runs.findOne({ where: { ideaId, status: DONE, ...(sees === null ? {} : { team: sees }) }, order: { finishedAt: { direction: 'DESC', nulls: 'LAST' }, createdAt: 'DESC' } });
  if (!latest) throw conflict('no_done_panel', `idea ${ideaId} has no done panel to ${purpose}: run a panel on it (a project file with idea_ref) and wait for it to finish`);
  return latest;
}

/** A submission's 400 is about the build part: its fields are named as the request gave them, under `build.`. */
function underBuild(e: unknown): unknown {
  if (!(e instanceof ApiError) || e.getStatus() !== 400) return e;
  const body = e.getResponse() as { error: string; message: string; issues?: Issue[] };
  const issues = (body.issues ?? []).map((i) => ({ ...i, path: i.path ? `build.${i.path}` : 'build', message: i.path && i.message.startsWith(`${i.path}: `) ? i.message.slice(i.path.length + 2) : i.message }));
  return new ApiError(400, { ...body, issues, message: issues.length ? `invalid build: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}` : `build: ${body.message}` });
}
