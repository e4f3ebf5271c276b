import { seg } from '../api-client';
import { DEFAULT_API } from '../cli-args';
import { commandHint, CommandContext, printJson, printLines } from '../command-context';
import { EXIT } from '../exit-codes';

/** `answer <run> <question> "<text>"`: a person's answer to an open question (Q1 …, as `show` lists them). */
export async function answerCommand(ctx: CommandContext): Promise<number> {
  const { run: runId, question, text } = ctx.cli.args;
  const reply = await ctx.client.postJson<Record<string, unknown>>(`/v1/runs/${seg(runId)}/answers`, { question_id: question.toUpperCase(), answer: text });
  if (ctx.cli.json) printJson(ctx, reply);
  else printLines(ctx, [`answered ${question.toUpperCase()} of run ${runId}; once no question is open the run goes on`, `follow it: ${commandHint(ctx, `watch ${runId}`, DEFAULT_API)}`]);
  return EXIT.OK;
}
