import type { Completion, ProviderRequest } from '../provider';
import { parseJsonReply } from '../json/json-reply';
import { plainJsonSchema } from '../json/structured-schema';
import { errorWords, isObj, lastJsonObject, num, str } from './cli-envelope';
import { cliFailure } from './cli-failure';
import type { CliRunResult } from './cli-process';
import { cliPrompt } from './cli-prompt';
import type { CliContext, CliInvocation } from './cli.provider';
import { CliProvider, modelArgs, promptOnStdin } from './cli.provider';

/** Result subtypes that still carry the model's reply (maybe without structured output). */
const REPLY_SUBTYPES = new Set(['success', 'error_max_turns', 'error_max_structured_output_retries']);

/**
 * `claude -p` in answer mode (agent mode: see invocation): `--tools ""` (no tools), `--json-schema` (structured_output
 * in the envelope), no session left behind, and `--system-prompt` replacing Claude Code's
 * own ~10k-token agent prompt.
 */
export class ClaudeCliProvider extends CliProvider {
  readonly cli = 'claude' as const;

  protected async invocation(req: ProviderRequest): Promise<CliInvocation> {
    const { system, prompt } = cliPrompt(req.messages);
    const mode = req.workdir
      ? // Agent mode: file tools on and edits accepted without asking, inside the worktree only
        // (cwd plus --add-dir); Claude Code's own agent prompt stays, the role prompt is appended.
        { tools: ['--permission-mode', 'acceptEdits', '--add-dir', req.workdir, '--tools', 'Read,Edit,Write,Glob,Grep'], turns: 30, systemFlag: '--append-system-prompt' }
      : { tools: ['--tools', ''], turns: 1, systemFlag: '--system-prompt' };
    // `claude -p` with no prompt argument reads the prompt from stdin.
    const stdin = promptOnStdin(prompt);
    return {
      ...(stdin ? { stdin: prompt } : {}),
      args: [
        '-p', ...(stdin ? [] : [prompt]),
        '--output-format', 'json',
        '--json-schema', JSON.stringify(plainJsonSchema(req.jsonSchema)),
        ...mode.tools,
        '--max-turns', String(req.maxTurns ?? mode.turns),
        '--no-session-persistence',
        ...(system ? [mode.systemFlag, system] : []),
        ...modelArgs('--model', req.model),
      ],
    };
  }

  protected async interpret(req: ProviderRequest, out: CliRunResult, ctx: CliContext): Promise<Completion> {
    const env = lastJsonObject(out.stdout);
    if (!env) {
      if (out.exitCode !== 0) throw cliFailure(this.name, this.cli, out.stderr || out.stdout, out.exitCode);
      return this.unparsed(req, ctx, out);
    }
    const subtype = str(env, 'subtype') ?? 'success';
    const result = str(env, 'result') ?? '';
    if (env.is_error === true || !REPLY_SUBTYPES.has(subtype)) {
      const failure = cliFailure(this.name, this.cli, errorWords(env.error) ?? (result || out.stderr), out.exitCode);
      if (failure.code !== 'CLI_FAILED' || !REPLY_SUBTYPES.has(subtype)) throw failure;
    }
    const structured = env.structured_output;
    const usage = isObj(env.usage) ? env.usage : null;
    const cacheRead = num(usage, 'cache_read_input_tokens') ?? 0;
    const modelUsage = isObj(env.modelUsage) ? Object.keys(env.modelUsage) : [];
    return {
      ...this.base(req, ctx),
      model: modelUsage[0] ?? req.model,
      text: isObj(structured) ? JSON.stringify(structured) : result,
      parsed: isObj(structured) ? structured : parseJsonReply(result),
      usage: {
        inputTokens: (num(usage, 'input_tokens') ?? 0) + cacheRead + (num(usage, 'cache_creation_input_tokens') ?? 0),
        outputTokens: num(usage, 'output_tokens') ?? 0,
        cachedInputTokens: cacheRead,
      },
      requestId: str(env, 'session_id', 'uuid'),
      stopReason: str(env, 'stop_reason') ?? (subtype || null),
      reportedCostUsd: num(env, 'total_cost_usd'),
      raw: env,
    };
  }
}
