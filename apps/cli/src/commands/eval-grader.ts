import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ProviderError } from '@roundtable/providers';
import {
  averageScores,
  compareWithBaseline,
  GoldenIdea,
  goldenTranscript,
  GRADER_JSON_SCHEMA,
  graderMessages,
  GraderBaseline,
  GraderScores,
  type GraderAverages,
  type GraderRow,
} from '@roundtable/workflow';
import { intOption } from '../cli-args';
import { CommandContext, printJson } from '../command-context';
import { EXIT } from '../exit-codes';
import { liveProvider, resolveLiveTarget, skipReason, type LiveTarget } from '../live-call';
import { ProjectFileError } from '../project-file';
import { UsageError } from '../usage-error';

/**
 * `eval panel --grader <provider>`: tier 2 of the golden set (seed 003), a command and not a test.
 * Like `call` it runs the provider's real adapter from this machine, with this shell's keys: each
 * golden idea's transcript goes to the grader model, the per-dimension averages are compared with
 * the stored baseline, and a drop of 0.5 or more is flagged (exit 1). What is graded and how it
 * is scored is libs/workflow's (verification/panel-grader.ts); this file reads, calls and prints.
 */

const DEFAULT_GOLDEN = 'test/fixtures/panel-golden';
const BASELINE_FILE = 'grader-baseline.json';

interface Graded {
  name: string;
  scores: GraderScores;
}


function loadGolden(dir: string): { name: string; idea: GoldenIdea }[] {
  if (!existsSync(dir)) throw new ProjectFileError(`no golden directory ${dir} (give one with --golden DIR)`);
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();
  if (files.length === 0) throw new ProjectFileError(`${dir} holds no golden idea (*.yaml)`);
  return files.map((f) => {
    const parsed = GoldenIdea.safeParse(parseYaml(readFileSync(path.join(dir, f), 'utf8')));
    if (!parsed.success) throw new ProjectFileError(`${path.join(dir, f)} is not a golden idea: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    return { name: f.replace(/\.yaml$/, ''), idea: parsed.data };
  });
}

function loadBaseline(file: string): GraderBaseline | null {
  if (!existsSync(file)) return null;
  const parsed = GraderBaseline.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) throw new ProjectFileError(`${file} is not a grader baseline: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

const fmt = (n: number | null, signed = false) => (n === null ? '—' : `${signed && n > 0 ? '+' : ''}${n.toFixed(2)}`);

function table(rows: readonly GraderRow[]): string[] {
  const head = ['dimension', 'baseline', 'now', 'delta', ''];
  const body = rows.map((r) => [r.dimension, fmt(r.baseline), fmt(r.now), fmt(r.delta, true), r.flagged ? 'FLAG' : '']);
  const widths = head.map((_, i) => Math.max(...[head, ...body].map((cells) => cells[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  return [line(head), ...body.map(line)];
}

export async function evalPanelGrader(ctx: CommandContext): Promise<number> {
  const opt = (k: string) => (typeof ctx.cli.options[k] === 'string' ? (ctx.cli.options[k] as string) : undefined);
  const grader = opt('grader');
  if (!grader) throw new UsageError('eval panel needs --grader <provider> (e.g. --grader anthropic)', 'eval');
  const goldenDir = path.resolve(ctx.io.cwd, opt('golden') ?? DEFAULT_GOLDEN);
  const baselineFile = path.resolve(ctx.io.cwd, opt('baseline') ?? path.join(goldenDir, BASELINE_FILE));
  const target: LiveTarget = resolveLiveTarget(grader, { configFile: opt('config'), model: opt('model'), cwd: ctx.io.cwd, env: ctx.io.env });
  const golden = loadGolden(goldenDir);
  const baseline = loadBaseline(baselineFile);

  const skip = skipReason(target, ctx.io.env);
  if (skip) {
    if (ctx.cli.json) printJson(ctx, { suite: 'panel', grader, model: target.model, skipped: skip });
    else ctx.io.stdout.write(`skipped: ${skip}\n`);
    return EXIT.OK;
  }

  const provider = liveProvider(target, ctx.io.env as NodeJS.ProcessEnv);
  const timeoutMs = (intOption(ctx.cli.options, 'timeout-s') ?? 120) * 1000;
  const graded: Graded[] = [];
  for (const [i, g] of golden.entries()) {
    let parsed: unknown;
    try {
      const c = await provider.run({
        messages: graderMessages(goldenTranscript(g.idea)),
        model: target.model,
        schemaName: 'GraderScores',
        jsonSchema: GRADER_JSON_SCHEMA,
        maxTokens: 1024,
        temperature: 0,
        timeoutMs,
        role: 'grader',
        ordinal: i,
      });
      parsed = c.parsed;
    } catch (e) {
      if (!(e instanceof ProviderError)) throw e;
      ctx.io.stderr.write(`${grader} failed grading ${g.name} (${e.code}): ${e.message}\n`);
      return EXIT.ERROR;
    }
    const checked = GraderScores.safeParse(parsed);
    if (!checked.success) {
      const why = parsed === null ? 'the reply is not a JSON object' : checked.error.issues.map((x) => `${x.path.join('.') || '(root)'}: ${x.message}`).join('; ');
      ctx.io.stderr.write(`${grader}'s grade of ${g.name} does not match the grader schema: ${why}\n`);
      return EXIT.ERROR;
    }
    graded.push({ name: g.name, scores: checked.data });
  }

  const now: GraderAverages = averageScores(graded.map((g) => g.scores));
  const rows = compareWithBaseline(now, baseline?.scores ? (baseline.scores as GraderAverages) : null);
  const flagged = rows.filter((r) => r.flagged).map((r) => r.dimension);
  const written: GraderBaseline = { grader, model: target.model, recorded_at: new Date().toISOString(), ideas: graded.length, scores: now };
  if (ctx.cli.options['write-baseline'] === true) writeFileSync(baselineFile, `${JSON.stringify(written, null, 2)}\n`);

  if (ctx.cli.json) {
    printJson(ctx, { suite: 'panel', grader, model: target.model, ideas: graded, baseline_file: baselineFile, baseline, rows, flagged, baseline_written: ctx.cli.options['write-baseline'] === true });
  } else {
    const against = baseline ? `baseline ${path.relative(ctx.io.cwd, baselineFile) || baselineFile} (${baseline.grader}/${baseline.model}, ${baseline.recorded_at})` : `no baseline at ${baselineFile}`;
    ctx.io.stdout.write(
      [
        `eval panel: ${graded.length} golden ideas graded by ${grader}/${target.model}; ${against}`,
        ...table(rows),
        flagged.length
          ? `FLAG: ${flagged.join(', ')} dropped by 0.5 or more against the baseline`
          : baseline
            ? 'no dimension dropped by 0.5 or more'
            : 'nothing to compare with: --write-baseline stores these averages as the baseline',
        ...(ctx.cli.options['write-baseline'] === true ? [`baseline written: ${baselineFile}`] : []),
      ].join('\n') + '\n',
    );
  }
  return flagged.length ? EXIT.ERROR : EXIT.OK;
}
