import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_OPERATOR_POLICY, type CliProviderConfig, type OperatorPolicy } from '@roundtable/contracts';
import type { z } from 'zod';
import type { Completion, Provider, ProviderRequest } from '../provider';
import { ProviderError } from '../provider';
import { parseJsonReply } from '../json/json-reply';
import { cliChildEnv } from './cli-env';
import type { CliRunResult } from './cli-process';
import { runCli } from './cli-process';
import { cliUserFor, type CliUser } from './cli-user';

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

/** `ROUNDTABLE_CLAUDE_BIN` etc.: where the binary is when the operator policy's cli.binaries does not say. */
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
    protected readonly policy: OperatorPolicy = DEFAULT_OPERATOR_POLICY,
    /** The uid this process runs as: root gives the CLI the policy's run_as user. */
    private readonly processUid: number = process.getuid?.() ?? 0,
  ) {}

  protected abstract invocation(req: ProviderRequest, dir: string): Promise<CliInvocation>;
  protected abstract interpret(req: ProviderRequest, out: CliRunResult, ctx: CliContext): Promise<Completion>;

  /** The operator's choice, never the project's: the policy's cli.binaries, else ROUNDTABLE_<CLI>_BIN, else the CLI's name on PATH. */
  binary(): string {
    return this.policy.cli.binaries[this.cli] ?? this.env[cliBinaryEnvVar(this.cli)] ?? this.cli;
  }

  async run(req: ProviderRequest): Promise<Completion> {
    const decided = cliUserFor(this.policy, this.processUid);
    if (!decided.ok) throw new ProviderError('POLICY_REFUSED', `${this.name} (${this.cli} CLI): ${decided.message}`);
    const user = decided.user;
    const dir = await mkdtemp(path.join(tmpdir(), `roundtable-${this.cli}-`));
    try {
      // The scratch directory is the child's: its cwd in answer mode, where it writes its output files, and its HOME.
      if (user.kind === 'run_as') await chown(dir, user.uid, user.gid);
      const inv = await this.invocation(req, dir);
      const argv = [this.binary(), ...inv.args];
      const env = { ...cliChildEnv(this.env, inv.keepEnv, inv.env), ...this.homeOf(user, dir) };
      const started = Date.now();
      // Agent mode works in the run's worktree; answer mode in the empty scratch directory.
      const out = await runCli({
        argv,
        cwd: req.workdir ?? dir,
        env,
        timeoutMs: req.timeoutMs,
        provider: this.name,
        input: inv.stdin,
        ...(user.kind === 'run_as' ? { uid: user.uid, gid: user.gid } : {}),
      });
      if (out.timedOut) {
        throw new ProviderError('TIMEOUT', `${this.name} (${this.cli} CLI): no reply within ${req.timeoutMs} ms; the process was killed`, true);
      }
      return await this.interpret(req, out, { dir, argv, started, env });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * Another user cannot use the worker's HOME (root's, unreadable to it): it gets the policy's
   * cli.home (where the operator keeps that user's CLI logins), else the call's scratch directory.
   */
  private homeOf(user: CliUser, dir: string): Record<string, string> {
    if (user.kind !== 'run_as') return {};
    const home = this.policy.cli.home ?? dir;
    return { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_CACHE_HOME: path.join(home, '.cache') };
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
