import { readFileSync } from 'node:fs';
import path from 'node:path';
import { verifyExport, type RecordVerdict } from '@roundtable/contracts';
import { seg } from '../api-client';
import { CommandContext, printJson } from '../command-context';
import { EXIT } from '../exit-codes';
import { UsageError } from '../usage-error';

/**
 * `verify <run>`: asks the api to recompute the run's hash chain (GET /v1/runs/:id/verify).
 * `verify --file <export.json>`: checks an export offline, with the same code, no api.
 * `--public-key <pem file>`: the operator's key the signature must be made with (with a run, the
 * export is fetched and checked here). Exit 0 intact, 4 not intact, 1 anything else.
 */
export async function verifyCommand(ctx: CommandContext): Promise<number> {
  const runId = ctx.cli.args.run;
  const file = typeof ctx.cli.options.file === 'string' ? path.resolve(ctx.io.cwd, ctx.cli.options.file) : null;
  const keyFile = typeof ctx.cli.options['public-key'] === 'string' ? path.resolve(ctx.io.cwd, ctx.cli.options['public-key']) : null;
  if (!file && !runId) throw new UsageError('verify needs <run>, or --file <export.json>', 'verify');
  if (file && runId) throw new UsageError('verify takes <run> or --file, not both', 'verify');

  let publicKey: string | undefined;
  if (keyFile) {
    const text = readOrNull(ctx, keyFile);
    if (text === null) return EXIT.ERROR;
    publicKey = text;
  }

  let verdict: RecordVerdict;
  if (file || publicKey) {
    const text = file ? readOrNull(ctx, file) : await ctx.client.getText(`/v1/runs/${seg(runId!)}/export`);
    if (text === null) return EXIT.ERROR;
    const checked = checkExport(text, publicKey);
    if ('error' in checked) {
      ctx.io.stderr.write(`${file ?? 'the export'} is not a run export: ${checked.error}\n`);
      return EXIT.ERROR;
    }
    verdict = checked;
  } else {
    verdict = await ctx.client.getJson<RecordVerdict>(`/v1/runs/${seg(runId!)}/verify`);
  }

  if (ctx.cli.json) printJson(ctx, verdict);
  else ctx.io.stdout.write(`${verdictLines(verdict).join('\n')}\n`);
  return verdict.intact ? EXIT.OK : EXIT.NOT_INTACT;
}

/** The verdict as a person reads it: "intact" and the head hash, or the first problem. */
export function verdictLines(v: RecordVerdict): string[] {
  if (!v.intact) {
    const where = [v.at.sequence !== undefined ? `event ${v.at.sequence}` : null, v.at.call_id ? `call ${v.at.call_id}` : null, v.at.artifact ? `artifact ${v.at.artifact}` : null]
      .filter(Boolean)
      .join(', ');
    return [`NOT INTACT: ${v.kind}${where ? ` at ${where}` : ''}`, v.detail];
  }
  const signature =
    v.signature.status === 'valid' ? `signature valid at event ${v.signature.sequence} (${v.signature.key === 'trusted' ? 'the key you gave' : 'the key it carries'})` : 'not signed';
  return [
    'intact',
    `head ${v.head ?? '(nothing chained)'}`,
    `${v.events} events${v.unchained ? ` (${v.unchained} from before the chain, not checked)` : ''}, ${v.calls} calls checked${v.unrecorded_calls ? `, ${v.unrecorded_calls} not yet recorded` : ''}; ${signature}`,
  ];
}

function checkExport(text: string, publicKey: string | undefined): RecordVerdict | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { error: (err as Error).message };
  }
  return verifyExport(json, { publicKey });
}

function readOrNull(ctx: CommandContext, file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    ctx.io.stderr.write(`cannot read ${file}: ${(err as Error).message}\n`);
    return null;
  }
}
