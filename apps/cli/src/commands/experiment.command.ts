import { seg } from '../api-client';
import { DEFAULT_API, UsageError } from '../cli-args';
import { commandHint, CommandContext, printJson, printLines } from '../command-context';
import { EXIT } from '../exit-codes';
import { decisionLines, listLines, preregCriteriaLines, shortHash, showLines, type ExperimentDetail, type ExperimentListItem } from '../experiment-show';
import { loadProjectFile } from '../project-file';
import { followToExit } from './follow-to-exit';

export { paintDecision, type ExperimentDetail } from '../experiment-show';

/** What each action takes after `experiment <action>`: its positional, by name (none for list). */
const ACTIONS: Record<string, string[]> = {
  preregister: ['file'],
  run: ['experiment'],
  show: ['experiment'],
  list: [],
};

/**
 * `experiment preregister FILE | run ID [--no-follow] | show ID | list [--project P] [--status S]` (issue 24),
 * through /v1/experiments. An experiment's run is an ordinary run of the `experiment` workflow: `run` follows
 * it like `roundtable run --follow`, then prints the decision the run left on the experiment.
 */
export async function experimentCommand(ctx: CommandContext): Promise<number> {
  const { action, rest } = experimentArgs(ctx);
  const json = ctx.cli.json;
  const { client } = ctx;
  const s = ctx.style;
  switch (action) {
    case 'preregister': {
      // An experiment file is a project file: ${VAR}s expanded from this shell, `repo` and cassettes made absolute.
      const config = loadProjectFile(rest.file, ctx.io.cwd, ctx.io.env);
      const e = await client.postJson<ExperimentDetail>('/v1/experiments', config);
      if (json) {
        printJson(ctx, e);
        return EXIT.OK;
      }
      // The id alone on stdout, as `run` and `idea new` print theirs: ID=$(roundtable experiment preregister f.yaml).
      printLines(ctx, [e.id]);
      const about = [
        `${s.bold(e.id)}  ${e.title ?? e.preregistration?.title ?? ''}`.trimEnd(),
        `status: ${e.status}`,
        `hash: ${shortHash(e.prereg_hash)}`,
        `commit: ${e.commit ?? '- (pinned when it is locked)'}`,
        ...(e.preregistration ? ['criteria:', ...preregCriteriaLines(e.preregistration)] : []),
        `next: ${commandHint(ctx, `experiment run ${e.id}`, DEFAULT_API)}`,
      ];
      ctx.io.stderr.write(about.map((l) => `${l}\n`).join(''));
      return EXIT.OK;
    }
    case 'run': {
      const started = await client.postJson<{ experiment_id: string; run_id: string }>(`/v1/experiments/${seg(rest.experiment)}/run`, {});
      // commander's `--no-follow`: cli-program.ts records it as `no-follow: true` when given.
      if (ctx.cli.options['no-follow'] === true) {
        if (json) printJson(ctx, started);
        else printLines(ctx, [started.run_id]);
        return EXIT.OK;
      }
      const code = await followToExit(ctx, started.run_id, json ? 'json' : 'pretty');
      // A run that failed, halted or was cancelled says so in its exit code; Ctrl-C leaves the run going.
      if (code !== EXIT.OK) return code;
      const e = await client.getJson<ExperimentDetail>(`/v1/experiments/${seg(started.experiment_id)}`);
      if (json) {
        // The events went out as JSON lines; the experiment is one more line.
        ctx.io.stdout.write(`${JSON.stringify(e)}\n`);
      } else {
        printLines(ctx, [...decisionLines(e, s), `details: ${commandHint(ctx, `experiment show ${e.id}`, DEFAULT_API)}`]);
      }
      // A decision is a result, not an error: KILL and INCONCLUSIVE exit 0 like PASS.
      if (e.decision) return EXIT.OK;
      ctx.io.stderr.write(`run ${started.run_id} ended done but experiment ${e.id} has no decision (status ${e.status})\n`);
      return EXIT.ERROR;
    }
    case 'show': {
      const e = await client.getJson<ExperimentDetail>(`/v1/experiments/${seg(rest.experiment)}`);
      if (json) printJson(ctx, e);
      else printLines(ctx, showLines(e, s));
      return EXIT.OK;
    }
    case 'list': {
      const params = new URLSearchParams();
      for (const name of ['project', 'status'] as const) {
        const v = ctx.cli.options[name];
        if (typeof v === 'string') params.set(name, v);
      }
      const query = params.toString() ? `?${params.toString()}` : '';
      const { items } = await client.getJson<{ items: ExperimentListItem[] }>(`/v1/experiments${query}`);
      if (json) {
        printJson(ctx, { items });
        return EXIT.OK;
      }
      printLines(ctx, listLines(items, s, ctx.tty, ctx.io.stdout.columns));
      return EXIT.OK;
    }
  }
  return EXIT.ERROR;
}

/** The action and its positional by name; a wrong action or count is a usage error that lists the forms. */
function experimentArgs(ctx: CommandContext): { action: keyof typeof ACTIONS; rest: Record<string, string> } {
  const { action, target } = ctx.cli.args;
  const forms = Object.entries(ACTIONS).map(([a, args]) => `experiment ${a}${args.map((x) => ` <${x}>`).join('')}`);
  if (!Object.hasOwn(ACTIONS, action)) throw new UsageError(`unknown experiment action ${action}; one of: ${forms.join(' | ')}`, 'experiment');
  const names = ACTIONS[action];
  // An empty argument (ID=$(…) that printed nothing) is a missing one, not a request for /v1/experiments//run.
  const positionals = target === undefined || target.trim() === '' ? [] : [target];
  if (positionals.length !== names.length) {
    throw new UsageError(names.length ? `experiment ${action} needs ${names.map((x) => `<${x}>`).join(' ')}` : `experiment ${action} takes no argument, got ${target}`, 'experiment');
  }
  return { action, rest: Object.fromEntries(names.map((n, i) => [n, positionals[i]])) };
}
