import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CliProviderConfig } from '@roundtable/contracts';
import type { z } from 'zod';
import type { Completion, Provider, ProviderRequest } from '../provider';
import { ProviderError } from '../provider';
import { parseJsonReply } from '../json/json-reply';
import { cliChildEnv } from './cli-env';
import type { CliRunResult } from './cli-process';
import { runCli } from './cli-process';

export type CliName = z.infer<typeof CliProviderConfig>['cli'];

/** What one CLI adapter decides: the arguments, extra environment, and how to read the output. */
export interface CliInvocation {
  args: string[];
  env?: Record<string, string>;
  /** Credentials this CLI uses itself and so must keep (gemini: its API key). */
  keepEnv?: readonly string[];
  /** The prompt, when it goes on stdin instead of the command line (see promptOnStdin). */
  stdin?: string;
}

/**
 * Linux caps one command-line argument at 128 KiB (MAX_ARG_STRLEN): a longer prompt (a fix
 * round with many files, files read before answering) cannot be an argument. Above this size
 * the CLIs that read their prompt from stdin (claude -p, codex exec -) get it there.
 */
export const STDIN_PROMPT_BYTES = 96 * 1024;
export const promptOnStdin = (prompt: string): boolean => Buffer.byteLength(prompt) > STDIN_PROMPT_BYTES;

export interface CliContext {
  /** A fresh empty directory: the CLI's cwd, and where schema and output files go. */
  dir: string;
  argv: string[];
  started: number;
  env: NodeJS.ProcessEnv;
}

/** `ROUNDTABLE_CLAUDE_BIN` etc.: where the binary is when the project file does not say. */
export const cliBinaryEnvVar = (cli: CliName) => `ROUNDTABLE_${cli.toUpperCase()}_BIN`;

/**
 * A subscription CLI in answer mode (tools off, one answer, JSON out), run in an empty
 * scratch directory; or, for an engineer in agent mode (`req.workdir`), inside the run's
 * worktree with its own editing tools on. Subclasses build the argv and read the envelope; an envelope without
 * usable JSON is still a Completion (parsed null), so the audit log keeps what the model wrote.
 */
export abstract class CliProvider implements Provider {
  readonly type = 'cli';
  abstract readonly cli: CliName;

  constructor(
    readonly name: string,
    protected readonly cfg: z.infer<typeof CliProviderConfig>,
    protected readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  protected abstract invocation(req: ProviderRequest, dir: string): Promise<CliInvocation>;
  protected abstract interpret(req: ProviderRequest, out: CliRunResult, ctx: CliContext): Promise<Completion>;

  binary(): string {
    return this.env[cliBinaryEnvVar(this.cli)] ?? this.cli;
  }

  async run(req: ProviderRequest): Promise<Completion> {
    const dir = await mkdtemp(path.join(tmpdir(), `roundtable-${this.cli}-`));
    try {
      const inv = await this.invocation(req, dir);
      const argv = [this.binary(), ...inv.args];
      const env = cliChildEnv(this.env, inv.keepEnv, inv.env);
      const started = Date.now();
      // Agent mode works in the run's worktree; answer mode in the empty scratch directory.
      const out = await runCli({ argv, cwd: req.workdir ?? dir, env, timeoutMs: req.timeoutMs, provider: this.name, input: inv.stdin });
      if (out.timedOut) {
        throw new ProviderError('TIMEOUT', `${this.name} (${this.cli} CLI): no reply within ${req.timeoutMs} ms; the process was killed`, true);
      }
      return await this.interpret(req, out, { dir, argv, started, env });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** The fields every CLI completion shares. */
  protected base(req: ProviderRequest, ctx: CliContext): Pick<Completion, 'provider' | 'latencyMs' | 'argv' | 'billing' | 'model'> {
    return { provider: this.name, model: req.model, latencyMs: Date.now() - ctx.started, argv: ctx.argv, billing: 'subscription' };
  }

  /** Output with no envelope at all: still the model's (or the CLI's) words, kept for the audit log. */
  protected unparsed(req: ProviderRequest, ctx: CliContext, out: CliRunResult): Completion {
    return {
      ...this.base(req, ctx),
      text: out.stdout,
      parsed: parseJsonReply(out.stdout),
      usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
      requestId: null,
      stopReason: null,
      reportedCostUsd: null,
      raw: { stdout: out.stdout, stderr: out.stderr, exitCode: out.exitCode },
    };
  }
}

/** `default` (or empty) leaves the model to the CLI's own configuration. */
export const modelArgs = (flag: string, model: string): string[] => (model && model !== 'default' ? [flag, model] : []);
