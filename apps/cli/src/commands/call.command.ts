import { ProviderError } from '@roundtable/providers';
import { intOption } from '../cli-args';
import { CommandContext, printJson } from '../command-context';
import { EXIT } from '../exit-codes';
import { livePricing, liveCall, resolveLiveTarget, skipReason } from '../live-call';

/**
 * `call <provider> "<prompt>" [--config FILE] [--model M]`: a credentials check. Unlike every
 * other command it does not go through the API: it runs the provider's adapter here, with this
 * shell's keys and CLI logins, and makes one structured call ({answer}), printing the parsed
 * JSON, tokens, cost and latency. No key (or no CLI binary): a clear skip, exit 0.
 */
export async function callCommand(ctx: CommandContext): Promise<number> {
  const { provider: name, prompt } = ctx.cli.args;
  const opt = (k: string) => (typeof ctx.cli.options[k] === 'string' ? (ctx.cli.options[k] as string) : undefined);
  const target = resolveLiveTarget(name, { configFile: opt('config'), model: opt('model'), cwd: ctx.io.cwd, env: ctx.io.env });
  const skip = skipReason(target, ctx.io.env);
  if (skip) {
    if (ctx.cli.json) printJson(ctx, { provider: name, model: target.model, skipped: skip });
    else ctx.io.stdout.write(`skipped: ${skip}\n`);
    return EXIT.OK;
  }
  const pricing = livePricing(opt('pricing') ?? ctx.io.env.PRICING_FILE, ctx.io.cwd);
  const timeoutMs = (intOption(ctx.cli.options, 'timeout-s') ?? 60) * 1000;
  try {
    const r = await liveCall(target, prompt, { env: ctx.io.env as NodeJS.ProcessEnv, timeoutMs, pricing: pricing.table });
    const c = r.completion;
    if (ctx.cli.json) {
      printJson(ctx, {
        provider: name,
        model: c.model,
        parsed: c.parsed,
        valid: r.invalid === null,
        error: r.invalid,
        usage: { input_tokens: c.usage.inputTokens, output_tokens: c.usage.outputTokens, cached_input_tokens: c.usage.cachedInputTokens },
        cost_usd: r.price.costUsd,
        cost_source: r.price.costSource,
        latency_ms: c.latencyMs,
        request_id: c.requestId,
        billing: c.billing ?? null,
      });
    } else {
      const cost = r.price.costUsd === null ? 'cost=n/a (no price for this model)' : `$${r.price.costUsd.toFixed(6)} (${r.price.costSource === 'table' ? 'pricing table' : 'the CLI’s own estimate'})`;
      ctx.io.stdout.write(
        [
          `${name}/${c.model}: ${c.parsed === null ? c.text : JSON.stringify(c.parsed)}`,
          `tokens in=${c.usage.inputTokens} out=${c.usage.outputTokens}${c.usage.cachedInputTokens ? ` (cached ${c.usage.cachedInputTokens})` : ''}  ${cost}  ${c.latencyMs} ms` +
            `${c.requestId ? `  request ${c.requestId}` : ''}${c.billing ? `  billing ${c.billing}` : ''}`,
          ...(r.invalid ? [`the reply did not match {answer: string}: ${r.invalid}`] : []),
        ].join('\n') + '\n',
      );
    }
    return r.invalid === null ? EXIT.OK : EXIT.ERROR;
  } catch (e) {
    if (!(e instanceof ProviderError)) throw e;
    const status = e.httpStatus !== null && !e.message.includes(String(e.httpStatus)) ? ` (HTTP ${e.httpStatus})` : '';
    if (ctx.cli.json) ctx.io.stderr.write(`${JSON.stringify({ error: e.code, message: e.message, status: e.httpStatus, retryable: e.retryable })}\n`);
    else ctx.io.stderr.write(`${name} call failed (${e.code})${status}: ${e.message}\n`);
    return EXIT.ERROR;
  }
}
