import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { type AnyProjectConfig, type CodingTaskRequest, EvalRequest, type NewRunEvent, type PanelIdeaTaskRequest } from '@roundtable/contracts';
import { EvalCellEntity, EvalEntity, EvalTaskEntity } from '@roundtable/persistence';
import { deriveEvalArms, EvalConfigError, runProjectFor, type EvalArm } from '@roundtable/workflow';
import { ApiError } from '../api-error';
import { newId, type RunSubmissionService, type StoredRun } from '../run-submission.service';
import type { Submitter } from '../team-scope';

type EvalTask = CodingTaskRequest | PanelIdeaTaskRequest;

/** One run to start: its cell, and its project file as checked. */
interface PlannedRun {
  cellId: string;
  config: AnyProjectConfig;
  unserved: NewRunEvent[];
}

/**
 * The most runs one eval may start. One write is otherwise N tasks × M configurations × a vote's
 * samples (up to 100 × 8 × 9): a write token would start thousands of runs with one request.
 * `--tasks` splits a suite that needs more.
 */
export const EVAL_MAX_RUNS = 400;

const issuesOf = (e: { issues: readonly { path: PropertyKey[]; message: string }[] }) => e.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));

/**
 * Starts an eval (issue 25): every task under every configuration — the given ones and the
 * baselines derived from the first (libs/workflow eval-configs.ts) — as ordinary runs, each at
 * the eval's budget per task (a vote's N samples share it). Every run's project file goes through
 * the same checks as a submit (schema, operator policy, providers) and one refusal refuses the
 * eval, naming the configuration and the task, before anything is written. The eval, its tasks
 * (hidden tests in their own column), its cells and all its runs are written in one transaction.
 */
export class EvalsService {
  constructor(
    private readonly ds: DataSource,
    private readonly submission: RunSubmissionService,
  ) {}

  /** The eval and all its runs belong to the submitter's team. */
  async create(body: unknown, { name: submittedBy, team }: Submitter): Promise<{ id: string }> {
    const parsed = EvalRequest.safeParse(body);
    if (!parsed.success) throw ApiError.badRequest('invalid_eval', `the eval request is not valid: ${issuesOf(parsed.error).map((i) => `${i.path}: ${i.message}`).join('; ')}`, { issues: issuesOf(parsed.error) });
    const request = parsed.data;
    let arms: EvalArm[];
    try {
      arms = deriveEvalArms(request);
    } catch (e) {
      if (e instanceof EvalConfigError) throw ApiError.badRequest('invalid_eval', e.message);
      throw e;
    }
    const tasks: EvalTask[] = request.tasks;
    const runCount = tasks.length * arms.reduce((n, a) => n + a.samples, 0);
    if (runCount > EVAL_MAX_RUNS) {
      throw ApiError.badRequest('invalid_eval', `this eval would start ${runCount} runs (${tasks.length} tasks × ${arms.map((a) => `${a.name}${a.samples > 1 ? ` ×${a.samples}` : ''}`).join(' + ')}); one eval starts at most ${EVAL_MAX_RUNS}: give fewer tasks (roundtable eval --tasks), configurations or vote_samples`);
    }
    const cells = tasks.flatMap((task) => arms.map((arm) => ({ id: newId('evc'), task, arm })));
    const planned = await this.checkRuns(cells, request.budget, request.suite);

    const id = newId('eval');
    const stored = await this.ds.transaction(async (em) => {
      await em.insert(EvalEntity, { id, suite: request.suite, score: request.score, status: 'running', budget: request.budget, configs: arms, submittedBy, team } as unknown as QueryDeepPartialEntity<EvalEntity>);
      await em.insert(
        EvalTaskEntity,
        tasks.map((t, position) => {
          const { hidden, ...spec } = t as CodingTaskRequest & PanelIdeaTaskRequest;
          return { evalId: id, taskId: t.id, position, difficulty: t.difficulty, spec, hidden: hidden ?? null };
        }) as QueryDeepPartialEntity<EvalTaskEntity>[],
      );
      await em.insert(EvalCellEntity, cells.map((c) => ({ id: c.id, evalId: id, taskId: c.task.id, config: c.arm.name, status: 'running' })) as QueryDeepPartialEntity<EvalCellEntity>[]);
      const runs: StoredRun[] = [];
      for (const p of planned) runs.push(await this.submission.storeIn(em, p.config, { submittedBy, team, unserved: p.unserved, evalCellId: p.cellId }));
      return runs;
    });
    await this.submission.announce(stored);
    return { id };
  }

  /**
   * Every run's project file checked as a submit checks one. The first refusal refuses the eval,
   * with that check's issues, each naming the configuration and the task: a configuration's
   * problem is the same for every task, so the rest are not asked.
   */
  private async checkRuns(cells: { id: string; task: EvalTask; arm: EvalArm }[], budget: EvalRequest['budget'], suite: string): Promise<PlannedRun[]> {
    const planned: PlannedRun[] = [];
    for (const { id, task, arm } of cells) {
      let checked: Awaited<ReturnType<RunSubmissionService['check']>>;
      try {
        checked = await this.submission.check(runProjectFor(arm, task, budget, suite));
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        const err = e.getResponse() as { issues?: { path: string; message: string }[]; message?: string };
        const issues = (err.issues ?? [{ path: '', message: err.message ?? 'refused' }]).map((i) => ({ path: `configs.${arm.name}.${i.path}`.replace(/\.$/, ''), message: `task ${task.id}: ${i.message}` }));
        throw ApiError.badRequest('invalid_eval', `a configuration cannot run: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, { issues });
      }
      for (let i = 0; i < arm.samples; i++) planned.push({ cellId: id, config: checked.config, unserved: checked.unserved });
    }
    return planned;
  }
}
