import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type EvalConfigRequest, type EvalDetail, type EvalRequestInput, evalRequestTasks, findEvalSuite, loadEvalSuite } from '@roundtable/contracts';
import { evalJson, evalMatrix, evalPlotSvg, evalTable } from '@roundtable/workflow';
import { intOption } from '../cli-args';
import { CommandContext, printJson, printLines } from '../command-context';
import { EXIT } from '../exit-codes';
import { LiveOutput } from '../live-output';
import { sleep, TERMINAL_RUN_STATUSES } from '../poll-events';
import { loadProjectFile } from '../project-file';
import { UsageError } from '../usage-error';

/**
 * `eval <suite> --configs a.yaml,b.yaml` (issue 25): reads `evals/<suite>/`, posts every task and
 * configuration to the api (which adds the baselines and runs them all as ordinary runs at the
 * same budget per task), follows the eval with a progress bar, then prints the table and the
 * per-task matrix and writes the JSON and the plot. `eval <eval id>` follows one already started.
 * What is computed (intervals, paired tests, the plot) is libs/workflow's eval/; this reads,
 * posts, waits and prints.
 */

const DEFAULT_MAX_TOKENS = 100_000;
const POLL_MS = 1000;

const opt = (ctx: CommandContext, k: string) => (typeof ctx.cli.options[k] === 'string' ? (ctx.cli.options[k] as string) : undefined);
const list = (raw: string | undefined) => (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean);

function positiveNumber(ctx: CommandContext, name: string): number | undefined {
  const raw = opt(ctx, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${name} needs a positive number, got ${raw}`, 'eval');
  return n;
}

/** A configuration file: a project file without the task's fields; named by its file name (team.yaml → team). */
function loadConfig(ctx: CommandContext, file: string): EvalConfigRequest {
  const project = loadProjectFile(file, ctx.io.cwd, ctx.io.env);
  for (const own of ['objective', 'requirements', 'idea']) delete project[own];
  return { name: path.basename(file).replace(/\.(ya?ml|json)$/i, ''), project };
}

export async function runEvalSuite(ctx: CommandContext): Promise<number> {
  const configFiles = list(opt(ctx, 'configs'));
  if (!configFiles.length) throw new UsageError('eval <suite> needs --configs a.yaml[,b.yaml…]: the configurations to compare (project files without objective/requirements)', 'eval');
  const evalsDir = path.resolve(ctx.io.cwd, opt(ctx, 'evals-dir') ?? 'evals');
  const suite = loadEvalSuite(findEvalSuite(ctx.cli.args.suite, evalsDir));
  const only = list(opt(ctx, 'tasks'));
  const known = suite.tasks.map((t) => ('task' in t ? t.task.id : t.id));
  const unknown = only.filter((t) => !known.includes(t));
  if (unknown.length) throw new UsageError(`--tasks names ${unknown.join(', ')}, not in suite ${suite.suite.name} (it has ${known.join(', ')})`, 'eval');
  const tasks = (evalRequestTasks(suite) as { id: string }[]).filter((t) => !only.length || only.includes(t.id));
  const maxCost = positiveNumber(ctx, 'max-cost-usd');
  const maxSeconds = positiveNumber(ctx, 'max-seconds');
  const voteSamples = intOption(ctx.cli.options, 'vote-samples');
  const request = {
    suite: suite.suite.name,
    score: suite.suite.score,
    tasks,
    configs: configFiles.map((f) => loadConfig(ctx, f)),
    baselines: ctx.cli.options['no-baselines'] !== true,
    budget: { max_tokens: intOption(ctx.cli.options, 'max-tokens') ?? DEFAULT_MAX_TOKENS, ...(maxCost ? { max_cost_usd: maxCost } : {}), ...(maxSeconds ? { max_seconds: maxSeconds } : {}) },
    ...(voteSamples ? { vote_samples: voteSamples } : {}),
  } as EvalRequestInput;
  const started = await ctx.client.postJson<EvalDetail>('/v1/evals', request);
  const names = started.configs.map((c) => `${c.name}${c.samples > 1 ? ` (${c.samples} samples)` : ''}`);
  ctx.io.stderr.write(
    `eval ${started.id}: ${started.tasks.length} tasks × ${started.configs.length} configurations (${names.join(', ')}) = ${started.progress.total} cells; ` +
      `budget per task ${started.budget.max_tokens} tokens${started.budget.max_cost_usd ? `, $${started.budget.max_cost_usd}` : ''}\n`,
  );
  return followEval(ctx, started.id);
}

/** Polls the eval until every cell is scored (a progress bar on stderr), then prints and writes its results. */
export async function followEval(ctx: CommandContext, id: string): Promise<number> {
  const live = new LiveOutput(ctx.io.stderr, !!ctx.io.stderr.isTTY);
  let detail = await ctx.client.getJson<EvalDetail>(`/v1/evals/${id}`);
  let shown = -1;
  while (detail.status === 'running' && !ctx.signal?.aborted) {
    if (ctx.tty || detail.progress.done !== shown) live.progress(progressBar(detail));
    shown = detail.progress.done;
    await sleep(intOption(ctx.cli.options, 'poll-ms') ?? POLL_MS, ctx.signal);
    detail = await ctx.client.getJson<EvalDetail>(`/v1/evals/${id}`);
  }
  live.finish();
  if (detail.status === 'running') {
    ctx.io.stderr.write(`stopped following; the eval goes on in the services: roundtable eval ${id} follows it again\n`);
    return EXIT.CANCELLED;
  }
  const out = path.resolve(ctx.io.cwd, opt(ctx, 'out') ?? path.join('runs', 'evals', id));
  mkdirSync(out, { recursive: true });
  const files = { json: path.join(out, 'eval.json'), plot: path.join(out, 'plot.svg') };
  writeFileSync(files.json, `${JSON.stringify(evalJson(detail), null, 2)}\n`);
  writeFileSync(files.plot, evalPlotSvg(detail));
  if (ctx.cli.json) {
    printJson(ctx, evalJson(detail));
    return EXIT.OK;
  }
  printLines(ctx, [...evalTable(detail), '', ...evalMatrix(detail), '', `written: ${path.relative(ctx.io.cwd, files.json) || files.json}, ${path.relative(ctx.io.cwd, files.plot) || files.plot}`]);
  return EXIT.OK;
}

/** `[########------------] 12/30 cells scored · 5 runs going`. */
export function progressBar(d: EvalDetail, width = 24): string {
  const { done, total } = d.progress;
  const filled = total ? Math.round((done / total) * width) : 0;
  const going = d.cells.flatMap((c) => c.runs)
    .filter((r) => !TERMINAL_RUN_STATUSES.has(r.status)).length;
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} cells scored · ${going} runs going`;
}
