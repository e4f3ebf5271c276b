import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Completion, ProviderRequest } from '../provider';
import { parseJsonReply } from '../json/json-reply';
import { dropNullOptionals, strictJsonSchema } from '../json/structured-schema';
import { errorWords, isObj, jsonLines, num, str } from './cli-envelope';
import type { Json } from './cli-envelope';
import { cliFailure } from './cli-failure';
import type { CliRunResult } from './cli-process';
import { cliPrompt, inlineSystem } from './cli-prompt';
import type { CliContext, CliInvocation } from './cli.provider';
import { CliProvider, modelArgs, promptOnStdin } from './cli.provider';

export const CODEX_SCHEMA_FILE = 'schema.json';
export const CODEX_LAST_MESSAGE_FILE = 'last-message.txt';

/**
 * `codex exec` in answer mode: read-only sandbox, no session kept, run in an empty
 * scratch directory outside any git repository. Codex has no system-prompt override, so
 * the role prompt goes in the user turn. Its schema must be strict (additionalProperties:
 * false on every object). Success is judged by `turn.completed` alone: an `error` event
 * followed by a reconnect is not a failure, a turn that never completes is.
 */
export class CodexCliProvider extends CliProvider {
  readonly cli = 'codex' as const;

  protected async invocation(req: ProviderRequest, dir: string): Promise<CliInvocation> {
    const { system, prompt } = cliPrompt(req.messages);
    const full = inlineSystem(system, prompt);
    const stdin = promptOnStdin(full);
    const schemaFile = path.join(dir, CODEX_SCHEMA_FILE);
    await writeFile(schemaFile, JSON.stringify(strictJsonSchema(req.jsonSchema)));
    return {
      ...(stdin ? { stdin: full } : {}),
      args: [
        'exec',
        '--json',
        '--ephemeral',
        '--skip-git-repo-check',
        // Agent mode: codex's own sandbox, writable only in the worktree (there is no --full-auto on exec).
        ...(req.workdir ? ['-C', req.workdir, '-s', 'workspace-write'] : ['-C', dir, '-s', 'read-only']),
        '--output-schema', schemaFile,
        '-o', path.join(dir, CODEX_LAST_MESSAGE_FILE),
        ...modelArgs('-m', req.model),
        ...(req.effort ? ['-c', `model_reasoning_effort=${req.effort}`] : []),
        // `-` reads the instructions from stdin.
        stdin ? '-' : full,
      ],
    };
  }

  protected async interpret(req: ProviderRequest, out: CliRunResult, ctx: CliContext): Promise<Completion> {
    const events = jsonLines(out.stdout);
    const completed = events.filter((e) => e.type === 'turn.completed').pop();
    if (!completed) {
      const failed = events.filter((e) => e.type === 'turn.failed').pop();
      const lastError = events.filter((e) => e.type === 'error').pop();
      const words =
        errorWords(failed?.error) ?? str(lastError ?? null, 'message') ?? (out.stderr.trim() || `codex exec ended without completing its turn`);
      throw cliFailure(this.name, this.cli, words, out.exitCode);
    }
    const fromFile = await readFile(path.join(ctx.dir, CODEX_LAST_MESSAGE_FILE), 'utf8').catch(() => '');
    const messages = events
      .filter((e) => e.type === 'item.completed' && isObj(e.item) && e.item.type === 'agent_message')
      .map((e) => str(e.item as Json, 'text') ?? '');
    const text = fromFile.trim() ? fromFile : (messages.pop() ?? '');
    const json = parseJsonReply(text);
    const usage = isObj(completed.usage) ? completed.usage : null;
    const thread = events.find((e) => e.type === 'thread.started');
    return {
      ...this.base(req, ctx),
      text,
      parsed: json === null ? null : dropNullOptionals(json, req.jsonSchema),
      usage: {
        // OpenAI-style: input_tokens already includes the cached ones
        inputTokens: num(usage, 'input_tokens') ?? 0,
        outputTokens: num(usage, 'output_tokens') ?? 0,
        cachedInputTokens: num(usage, 'cached_input_tokens') ?? 0,
      },
      requestId: str(thread ?? null, 'thread_id'),
      stopReason: 'turn.completed',
      reportedCostUsd: null,
      raw: { events, lastMessage: text },
    };
  }
}
