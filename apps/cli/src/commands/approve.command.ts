import { readFile } from 'node:fs/promises';
import { seg } from '../api-client';
import { DEFAULT_API, UsageError } from '../cli-args';
import { commandHint, CommandContext, printJson, printLines } from '../command-context';
import { parseCriteriaEdit } from '../criteria-edit';
import { EXIT } from '../exit-codes';

/**
 * `approve <run>` and `reject <run>` [--gate G] [--note TEXT] [--edit FILE]: a person's decision
 * at the gate the run waits at (POST /v1/runs/:id/approvals; the token needs the approve role).
 * Without --gate, the gate is the one GET /v1/runs/:id says the run waits at.
 */
export function decisionCommand(decision: 'approve' | 'reject') {
  return async (ctx: CommandContext): Promise<number> => {
    const runId = ctx.cli.args.run;
    const { gate: given, note, edit } = ctx.cli.options as { gate?: string; note?: string; edit?: string };
    const gate = given ?? (await gateOf(ctx, runId, decision));
    const edits = edit ? { criteria: parseCriteriaEdit(await readEditFile(edit), edit) } : undefined;
    const body = { gate, decision, ...(note ? { note } : {}), ...(edits ? { edits } : {}) };
    const reply = await ctx.client.postJson<Record<string, unknown>>(`/v1/runs/${seg(runId)}/approvals`, body);
    if (ctx.cli.json) {
      printJson(ctx, reply);
      return EXIT.OK;
    }
    const what = decision === 'approve' ? `approved at the ${gate} gate${edits ? ` with ${edits.criteria.length} criteria as edited` : ''}` : `refused at the ${gate} gate`;
    printLines(ctx, [`run ${runId} ${what}`, `follow it: ${commandHint(ctx, `watch ${runId}`, DEFAULT_API)}`]);
    return EXIT.OK;
  };
}

async function gateOf(ctx: CommandContext, runId: string, decision: string): Promise<string> {
  const run = await ctx.client.getJson<{ status: string; gate: { name: string } | null }>(`/v1/runs/${seg(runId)}`);
  if (!run.gate) throw new UsageError(`run ${runId} is ${run.status} and waits at no gate; there is nothing to ${decision}`, decision);
  return run.gate.name;
}

async function readEditFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    throw new UsageError(`--edit ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, 'approve');
  }
}
