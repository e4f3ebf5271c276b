import type { Completion, ProviderRequest } from '../provider';
import { parseJsonReply } from '../json/json-reply';
import { plainJsonSchema } from '../json/structured-schema';
import { errorWords, isObj, lastJsonObject, num, str } from './cli-envelope';
import { cliFailure } from './cli-failure';
import type { CliRunResult } from './cli-process';
import { cliPrompt } from './cli-prompt';
import type { CliContext, CliInvocation } from './cli.provider';
import { CliProvider, modelArgs } from './cli.provider';

/**
 * `grok --single` (a top-level flag, not `grok agent -p`) in answer mode. Grok needs more
 * than one turn on long prompts (with one it often returns an empty reply), so the default
 * is 3. On long prompts it may also stop with `stopReason: cancelled` and no text: that is a
 * Completion with parsed null, for the caller's repair call or fallback, not a crash.
 */
export class GrokCliProvider extends CliProvider {
  readonly cli = 'grok' as const;

  protected async invocation(req: ProviderRequest): Promise<CliInvocation> {
    const { system, prompt } = cliPrompt(req.messages);
    return {
      args: [
        '--single', prompt,
        '--output-format', 'json',
        '--json-schema', JSON.stringify(plainJsonSchema(req.jsonSchema)),
        '--max-turns', String(req.maxTurns ?? (req.workdir ? 30 : 3)),
        '--disable-web-search',
        // Agent mode: grok's tools work in the worktree and need no approval.
        ...(req.workdir ? ['--cwd', req.workdir, '--always-approve'] : []),
        ...(system ? ['--system-prompt-override', system] : []),
        ...modelArgs('--model', req.model),
        ...(req.effort ? ['--reasoning-effort', req.effort] : []),
      ],
    };
  }

  protected async interpret(req: ProviderRequest, out: CliRunResult, ctx: CliContext): Promise<Completion> {
    const env = lastJsonObject(out.stdout);
    if (!env) {
      if (out.exitCode !== 0) throw cliFailure(this.name, this.cli, out.stderr || out.stdout, out.exitCode);
      return this.unparsed(req, ctx, out);
    }
    const failure = errorWords(env.error) ?? (env.is_error === true || env.isError === true ? str(env, 'result', 'text') ?? out.stderr : null);
    if (failure !== null) throw cliFailure(this.name, this.cli, failure, out.exitCode);
    const structured = env.structuredOutput ?? env.structured_output;
    const text = str(env, 'text', 'result', 'response', 'content') ?? '';
    const usage = isObj(env.usage) ? env.usage : null;
    const cached = num(usage, 'cache_read_input_tokens', 'cached_input_tokens', 'cacheReadInputTokens', 'cachedInputTokens') ?? 0;
    // Anthropic-style usage counts cache reads apart from input_tokens; OpenAI-style includes them.
    const anthropicStyle = usage !== null && ('cache_read_input_tokens' in usage || 'cacheReadInputTokens' in usage);
    const input = num(usage, 'input_tokens', 'inputTokens', 'prompt_tokens', 'promptTokens') ?? 0;
    return {
      ...this.base(req, ctx),
      model: str(env, 'model') ?? req.model,
      text: isObj(structured) ? JSON.stringify(structured) : text,
      parsed: isObj(structured) ? structured : parseJsonReply(text),
      usage: {
        inputTokens: anthropicStyle ? input + cached : input,
        outputTokens: num(usage, 'output_tokens', 'outputTokens', 'completion_tokens', 'completionTokens') ?? 0,
        cachedInputTokens: cached,
      },
      requestId: str(env, 'session_id', 'sessionId', 'id'),
      stopReason: str(env, 'stopReason', 'stop_reason'),
      reportedCostUsd: num(env, 'total_cost_usd', 'totalCostUsd'),
      raw: env,
    };
  }
}
