import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Completion, ProviderRequest } from '../provider';
import { ProviderError } from '../provider';
import { parseJsonReply } from '../json/json-reply';
import { plainJsonSchema } from '../json/structured-schema';
import { agyEnvelope, agyUsage } from './agy-envelope';
import { errorWords, isObj, str } from './cli-envelope';
import { cliFailure } from './cli-failure';
import type { CliRunResult } from './cli-process';
import { cliPrompt, inlineSystem } from './cli-prompt';
import type { CliContext, CliInvocation } from './cli.provider';
import { CliProvider, modelArgs } from './cli.provider';

export const AGY_SCHEMA_FILE = 'schema.json';

/** agy's words when it predates a flag (Go's flag package): --output-format and --json-schema came in 1.1.8. */
const UNKNOWN_FLAG = /flags? provided but not defined/i;

/**
 * `agy` (Google's Antigravity CLI) in print mode: `--output-format json` (one envelope:
 * status, response, usage, conversation_id, error) and `--json-schema` (a schema file; the reply
 * comes back as structured_output), both agy 1.1.8+. The prompt is `-p`'s value, last on the line.
 * agy has no system-prompt flag, so the role prompt goes in the one prompt, as for codex.
 *
 * Headless, as its issue tracker records it:
 * - print mode asks for tool approval on a terminal; with none it denies every tool call and
 *   answers anyway. Answer mode wants exactly that (no --dangerously-skip-permissions), run in
 *   an empty scratch directory.
 * - with stdout not a terminal and stdin open, agy may print nothing and exit 0
 *   (google-antigravity/antigravity-cli#76); stdin is /dev/null here (runCli), and a reply of
 *   zero bytes is a failure saying so, not an empty answer.
 * - signed out, it prints "Authentication required", waits for a browser sign-in and ends with
 *   "authentication timed out" (#944, #53: a locked keyring on a headless Linux looks the same):
 *   AUTH, through cli-failure.
 * - `response` has raw newlines in it (#702): agyEnvelope reads it anyway.
 * - --print-timeout defaults to 5 minutes: set to the call's own timeout, so agy does not end a
 *   longer call first.
 * No agent mode: agy's only headless tool approval is --dangerously-skip-permissions, which
 * approves every tool anywhere, and its --sandbox was measured not to keep writes in the
 * workspace; the project loader refuses mode: agent on agy, and so does this adapter.
 */
export class AgyCliProvider extends CliProvider {
  readonly cli = 'agy' as const;

  protected async invocation(req: ProviderRequest, dir: string): Promise<CliInvocation> {
    // The project loader refuses this already; a stored config from before that check must not run it anyway.
    if (req.workdir) {
      throw new ProviderError(
        'PROVIDER_ERROR',
        `${this.name}: the agy CLI has no agent mode here (no flag keeps its edits inside the worktree); use claude, codex or grok for an engineer in mode: agent`,
      );
    }
    const { system, prompt } = cliPrompt(req.messages);
    const schemaFile = path.join(dir, AGY_SCHEMA_FILE);
    await writeFile(schemaFile, JSON.stringify(plainJsonSchema(req.jsonSchema)));
    return {
      args: [
        '--output-format', 'json',
        '--json-schema', schemaFile,
        '--print-timeout', `${Math.max(1, Math.ceil(req.timeoutMs / 1000))}s`,
        ...modelArgs('--model', req.model),
        '-p', inlineSystem(system, prompt),
      ],
      // An update mid-call would change the binary the operator chose under a running worker.
      env: { AGY_CLI_DISABLE_AUTO_UPDATE: 'T' },
    };
  }

  protected async interpret(req: ProviderRequest, out: CliRunResult, ctx: CliContext): Promise<Completion> {
    const env = agyEnvelope(out.stdout);
    if (!env) {
      if (out.exitCode !== 0) throw cliFailure(this.name, this.cli, withVersionHint(out.stderr || out.stdout), out.exitCode);
      if (!out.stdout.trim()) {
        throw new ProviderError(
          'CLI_FAILED',
          `${this.name} (agy CLI, exit 0): printed nothing, the known agy bug with a stdout that is not a terminal (google-antigravity/antigravity-cli#76); update agy (agy update)${out.stderr.trim() ? `; stderr: ${out.stderr.trim().slice(0, 2000)}` : ''}`,
        );
      }
      return this.unparsed(req, ctx, out);
    }
    const status = str(env, 'status');
    const response = str(env, 'response') ?? '';
    // A success carries `error: null`, "" or {}: zero values, not failures.
    const error = isObj(env.error) && Object.keys(env.error).length === 0 ? null : errorWords(env.error);
    const failure = error ?? (status === 'ERROR' ? response || out.stderr || 'status ERROR, with no error words' : null);
    if (failure !== null) throw cliFailure(this.name, this.cli, failure, out.exitCode);
    const structured = env.structured_output ?? env.structuredOutput;
    return {
      ...this.base(req, ctx),
      model: str(env, 'model') ?? req.model,
      text: isObj(structured) ? JSON.stringify(structured) : response,
      parsed: isObj(structured) ? structured : parseJsonReply(response),
      usage: agyUsage(isObj(env.usage) ? env.usage : null),
      requestId: str(env, 'conversation_id') || null,
      stopReason: status,
      reportedCostUsd: null,
      raw: env,
    };
  }
}

function withVersionHint(words: string): string {
  return UNKNOWN_FLAG.test(words) ? `${words.trim()} (--output-format json and --json-schema need agy 1.1.8 or later: agy update)` : words;
}
