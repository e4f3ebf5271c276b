import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { yamlSyntaxMessage } from '@roundtable/contracts';
import { seg } from '../api-client';
import { DEFAULT_API, intOption, UsageError } from '../cli-args';
import { commandHint, CommandContext, printJson, printLines } from '../command-context';
import { EXIT } from '../exit-codes';
import { loadProjectFile, ProjectFileError } from '../project-file';
import { followToExit } from './follow-to-exit';

interface Lock {
  run_id: string;
  locked_at: string;
}
interface VersionRow {
  version: number;
  locked: Lock | null;
  panels: string[];
  created_at?: string;
  created_by?: string;
}
interface IdeaVersion extends VersionRow {
  worksheet: Record<string, unknown> & { title: string; evidence: string[]; assumptions: string[]; open_risks: string[]; no_evidence_yet: boolean };
  readiness?: { ready: boolean; checks: { check: string; ok: boolean; message: string }[] };
}
interface IdeaDetail {
  id: string;
  title: string;
  latest_version: number;
  latest: IdeaVersion;
  versions: VersionRow[];
  handoffs?: { run_id: string; status: string; version: number; panel_run_id: string; recommendation: string }[];
}
interface IdeaDiff {
  from: number;
  to: number;
  fields: { field: string; changed: boolean; from: unknown; to: unknown }[];
}

/** What each action takes after `idea <action>`: its positionals, by name. */
const ACTIONS: Record<string, string[]> = {
  new: ['file'],
  edit: ['idea', 'file'],
  show: ['idea'],
  versions: ['idea'],
  diff: ['idea', 'A', 'B'],
  log: ['idea'],
  panel: ['idea', 'file'],
  handoff: ['idea'],
  experiment: ['idea', 'file'],
};

/** A worksheet (or an edit) from a YAML or JSON file of the user's: the fields as they are, read here, sent as data. */
function readWorksheetFile(file: string, cwd: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path.resolve(cwd, file), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ProjectFileError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (err) {
    throw new ProjectFileError(`${file}: ${err instanceof YAMLParseError ? yamlSyntaxMessage(text, err) : (err as Error).message.split('\n')[0]}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ProjectFileError(`${file} is not a YAML mapping (title, problem, target_user, solution, evidence, assumptions, open_risks …)`);
  return parsed as Record<string, unknown>;
}

const lockText = (l: Lock | null): string => (l ? `locked by ${l.run_id}` : 'open');
const show = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v) : Array.isArray(v) ? `[${v.map(show).join(', ')}]` : String(v));

/**
 * `idea new FILE | edit ID FILE [--base N] | show ID | versions ID | diff ID A B | log ID --claim … --source … --kind … | panel ID FILE [--version N] [--follow] | handoff ID --build FILE [--panel RUN]
 * | experiment ID FILE [--panel RUN]`: ideas as versioned worksheets and their evidence ledger (issue 23), and a
 * done panel's recommended experiment drafted as a preregistered experiment (issue 24), through /v1/ideas.
 */
export async function ideaCommand(ctx: CommandContext): Promise<number> {
  const { action, rest } = ideaArgs(ctx);
  const json = ctx.cli.json;
  const { client } = ctx;
  switch (action) {
    case 'new': {
      const idea = await client.postJson<IdeaDetail>('/v1/ideas', readWorksheetFile(rest.file, ctx.io.cwd));
      if (json) printJson(ctx, idea);
      else printLines(ctx, [idea.id]);
      return EXIT.OK;
    }
    case 'edit': {
      const base = intOption(ctx.cli.options, 'base');
      const body = { ...readWorksheetFile(rest.file, ctx.io.cwd), ...(base === undefined ? {} : { base_version: base }) };
      const v = await client.postJson<IdeaVersion>(`/v1/ideas/${seg(rest.idea)}/versions`, body);
      if (json) printJson(ctx, v);
      else printLines(ctx, [`version ${v.version}${v.readiness && !v.readiness.ready ? ' (not ready for a panel: see `roundtable idea show`)' : ''}`]);
      return EXIT.OK;
    }
    case 'show': {
      const idea = await client.getJson<IdeaDetail>(`/v1/ideas/${seg(rest.idea)}`);
      const latest = await client.getJson<IdeaVersion>(`/v1/ideas/${seg(rest.idea)}/versions/${idea.latest_version}`);
      if (json) {
        printJson(ctx, { ...idea, latest });
        return EXIT.OK;
      }
      const w = latest.worksheet;
      printLines(ctx, [
        `${idea.id}  ${idea.title}`,
        `version ${latest.version} of ${idea.versions.length} (${lockText(latest.locked)})`,
        ...['problem', 'target_user', 'solution'].map((f) => `  ${f}: ${String(w[f])}`),
        `  evidence: ${w.evidence.length ? w.evidence.join(', ') : w.no_evidence_yet ? 'none yet (no_evidence_yet)' : 'none'}`,
        ...w.assumptions.map((a) => `  assumption: ${a}`),
        ...w.open_risks.map((r) => `  open risk: ${r}`),
        `readiness: ${latest.readiness?.ready ? 'ready' : 'not ready'}`,
        ...(latest.readiness?.checks.filter((c) => !c.ok).map((c) => `  ✗ ${c.check}: ${c.message}`) ?? []),
        'versions:',
        ...idea.versions.map((v) => `  v${v.version}  ${lockText(v.locked)}  panels: ${v.panels.length ? v.panels.join(', ') : '-'}`),
        ...(idea.handoffs?.length ? ['handoffs:', ...idea.handoffs.map((h) => `  ${h.run_id}  ${h.status}  from v${h.version}, panel ${h.panel_run_id} (${h.recommendation})`)] : []),
      ]);
      return EXIT.OK;
    }
    case 'versions': {
      const versions = await client.getJson<VersionRow[]>(`/v1/ideas/${seg(rest.idea)}/versions`);
      if (json) printJson(ctx, versions);
      else printLines(ctx, versions.map((v) => `v${v.version}  ${v.created_at ?? ''}  ${v.created_by ?? ''}  ${lockText(v.locked)}  panels: ${v.panels.length ? v.panels.join(', ') : '-'}`));
      return EXIT.OK;
    }
    case 'diff': {
      const [a, b] = [rest.A, rest.B].map((n, i) => {
        if (!/^[1-9][0-9]*$/.test(n)) throw new UsageError(`idea diff needs version numbers, got ${n} for ${i === 0 ? 'A' : 'B'}`, 'idea');
        return n;
      });
      const diff = await client.getJson<IdeaDiff>(`/v1/ideas/${seg(rest.idea)}/diff?from=${a}&to=${b}`);
      if (json) {
        printJson(ctx, diff);
        return EXIT.OK;
      }
      const changed = diff.fields.filter((f) => f.changed);
      printLines(ctx, changed.length ? changed.map((f) => `${f.field}: ${show(f.from)} → ${show(f.to)}`) : [`v${diff.from} and v${diff.to} are the same`]);
      return EXIT.OK;
    }
    case 'panel': {
      // The panel's own settings (providers, agents, budget, panel) from the file, read as a project
      // file is (variables expanded here, paths made absolute); the idea by reference, never inline.
      const { idea: _inline, idea_ref: _ref, ...config } = loadProjectFile(rest.file, ctx.io.cwd, ctx.io.env);
      const version = intOption(ctx.cli.options, 'version') ?? (await client.getJson<IdeaDetail>(`/v1/ideas/${seg(rest.idea)}`)).latest_version;
      const run = await client.postJsonIdempotent<{ id: string }>('/v1/runs', { ...config, workflow: 'panel', idea_ref: { id: rest.idea, version } });
      if (ctx.cli.options.follow) return followToExit(ctx, run.id, json ? 'json' : 'pretty', {});
      if (json) printJson(ctx, run);
      else printLines(ctx, [run.id]);
      return EXIT.OK;
    }
    case 'handoff': {
      // The build part is a project file's: its ${VAR}s are expanded here and its paths made absolute, as `roundtable run` does.
      const file = ctx.cli.options.build;
      if (typeof file !== 'string') throw new UsageError('idea handoff needs --build FILE (a build project file without objective and requirements)', 'idea');
      const build = loadProjectFile(file, ctx.io.cwd, ctx.io.env);
      const panel = ctx.cli.options.panel;
      const run = await client.postJson<{ id: string }>(`/v1/ideas/${seg(rest.idea)}/handoff`, { ...(typeof panel === 'string' ? { panel_run_id: panel } : {}), build });
      if (json) printJson(ctx, run);
      else printLines(ctx, [run.id]);
      return EXIT.OK;
    }
    case 'experiment': {
      // An experiment file without its preregistration (the proposer drafts it from the panel's
      // recommended experiment), read as a project file is: ${VAR}s expanded, paths made absolute.
      const file = loadProjectFile(rest.file, ctx.io.cwd, ctx.io.env);
      const panel = ctx.cli.options.panel;
      const started = await client.postJson<{ experiment_id: string; run_id: string }>(`/v1/ideas/${seg(rest.idea)}/experiment`, {
        ...file,
        ...(typeof panel === 'string' ? { panel_run_id: panel } : {}),
      });
      if (json) {
        printJson(ctx, started);
        return EXIT.OK;
      }
      printLines(ctx, [
        `experiment ${started.experiment_id}`,
        `run ${started.run_id}`,
        `the proposer drafts the preregistration, then the run waits at the preregistration gate: read the draft and approve it with ${commandHint(ctx, `approve ${started.run_id} --gate preregistration`, DEFAULT_API)}`,
        `then: ${commandHint(ctx, `experiment show ${started.experiment_id}`, DEFAULT_API)} (its decision is logged to the idea's evidence ledger)`,
      ]);
      return EXIT.OK;
    }
    case 'log': {
      const o = ctx.cli.options;
      const missing = ['claim', 'source', 'kind'].filter((k) => typeof o[k] !== 'string');
      if (missing.length) throw new UsageError(`idea log needs ${missing.map((m) => `--${m}`).join(', ')}`, 'idea');
      const body = {
        claim: o.claim,
        source: o.source,
        kind: o.kind,
        // When it was found; today (UTC) when not said.
        date: typeof o.date === 'string' ? o.date : new Date().toISOString().slice(0, 10),
        ...(typeof o.supersedes === 'string' ? { supersedes: o.supersedes } : {}),
      };
      const entry = await client.postJson<{ id: string }>(`/v1/ideas/${seg(rest.idea)}/evidence`, body);
      if (json) printJson(ctx, entry);
      else printLines(ctx, [entry.id]);
      return EXIT.OK;
    }
  }
  return EXIT.ERROR;
}

/** The action and its positionals by name; a wrong action or count is a usage error that lists the forms. */
function ideaArgs(ctx: CommandContext): { action: keyof typeof ACTIONS; rest: Record<string, string> } {
  const { action, ...given } = ctx.cli.args;
  const forms = Object.entries(ACTIONS).map(([a, args]) => `idea ${a} ${args.map((x) => `<${x}>`).join(' ')}`);
  if (!Object.hasOwn(ACTIONS, action)) throw new UsageError(`unknown idea action ${action}; one of: ${forms.join(' | ')}`, 'idea');
  const positionals = ['target', 'second', 'third'].map((k) => given[k]).filter((v): v is string => v !== undefined);
  const names = ACTIONS[action];
  if (positionals.length !== names.length) throw new UsageError(`idea ${action} needs ${names.map((x) => `<${x}>`).join(' ')}`, 'idea');
  return { action, rest: Object.fromEntries(names.map((n, i) => [n, positionals[i]])) };
}
