import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Completion, ProviderRequest } from '../provider';
import { ProviderError } from '../provider';
import { parseJsonReply } from '../json/json-reply';
import { errorWords, isObj, lastJsonObject, num } from './cli-envelope';
import { cliFailure } from './cli-failure';
import type { CliRunResult } from './cli-process';
import { cliPrompt } from './cli-prompt';
import type { CliContext, CliInvocation } from './cli.provider';
import { CliProvider, modelArgs } from './cli.provider';
import { schemaInstruction } from '../api/openai-compat.provider';

/** Gemini CLI credentials it uses itself: with one set it bills the API, not a subscription. */
const GEMINI_KEYS = ['GEMINI_API_KEY', 'GOOGLE_API_KEY'] as const;

/**
 * `gemini -p` with JSON output. The CLI has no schema flag, so the schema goes in the
 * prompt; the role prompt replaces the CLI's own system prompt through GEMINI_SYSTEM_MD.
 * (Gemini's individual Code Assist tier refuses this client; an API key, GEMINI_API_KEY,
 * is what works, and then the call is billed per token.)
 */
export class GeminiCliProvider extends CliProvider {
  readonly cli = 'gemini' as const;

  protected async invocation(req: ProviderRequest, dir: string): Promise<CliInvocation> {
    // The project loader refuses this already; a stored config from before that check must not run it anyway.
    if (req.workdir) throw new ProviderError('PROVIDER_ERROR', `${this.name}: the gemini CLI has no agent mode here; use claude, codex or grok for an engineer in mode: agent`);
    const { system, prompt } = cliPrompt(req.messages);
    const env: Record<string, string> = {};
    if (system) {
      const file = path.join(dir, 'system.md');
      await writeFile(file, system);
      env.GEMINI_SYSTEM_MD = file;
    }
    return {
      args: ['-p', `${prompt}\n\n${schemaInstruction(req.schemaName, req.jsonSchema)}`, '--output-format', 'json', ...modelArgs('-m', req.model)],
      env,
      keepEnv: GEMINI_KEYS,
    };
  }

  protected async interpret(req: ProviderRequest, out: CliRunResult, ctx: CliContext): Promise<Completion> {
    const env = lastJsonObject(out.stdout);
    if (!env) {
      if (out.exitCode !== 0) throw cliFailure(this.name, this.cli, out.stderr || out.stdout, out.exitCode);
      return this.unparsed(req, ctx, out);
    }
    const failure = errorWords(env.error);
    if (failure !== null) throw cliFailure(this.name, this.cli, failure, out.exitCode);
    const text = typeof env.response === 'string' ? env.response : '';
    const models = isObj(env.stats) && isObj(env.stats.models) ? env.stats.models : {};
    let input = 0;
    let output = 0;
    let cached = 0;
    for (const m of Object.values(models)) {
      const t = isObj(m) && isObj(m.tokens) ? m.tokens : null;
      input += num(t, 'prompt') ?? 0;
      output += (num(t, 'candidates') ?? 0) + (num(t, 'thoughts') ?? 0);
      cached += num(t, 'cached') ?? 0;
    }
    const billedByKey = GEMINI_KEYS.some((k) => ctx.env[k]);
    return {
      ...this.base(req, ctx),
      model: Object.keys(models)[0] ?? req.model,
      billing: billedByKey ? 'api' : 'subscription',
      text,
      parsed: parseJsonReply(text),
      usage: { inputTokens: input, outputTokens: output, cachedInputTokens: cached },
      requestId: null,
      stopReason: null,
      reportedCostUsd: null,
      raw: env,
    };
  }
}
