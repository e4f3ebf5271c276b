import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, openSync, mkdirSync, readFileSync, readlinkSync, readSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FakeCliCall, FakeCliName } from './fake-cli-output';
import { fakeCliOutput } from './fake-cli-output';
import { loadFakeScript, type FakeScriptEntry } from './fake-script';
import { ScriptEngine } from './script-engine';

/** Environment the fake CLIs read: the script, and the JSONL log of their invocations. */
export const FAKE_LLM_SCRIPT_ENV = 'FAKE_LLM_SCRIPT';
export const FAKE_LLM_LOG_ENV = 'FAKE_LLM_LOG';


/** One line of the fake CLIs' log: what ran, and which script entry answered. */
export interface FakeCliLogLine {
  cli: FakeCliName;
  /** Arguments after the binary, exactly as received. */
  argv: string[];
  cwd: string;
  /** The HOME it was given. */
  home: string | null;
  /** What fd 0 was: `/dev/null` when the caller closed stdin, as the adapters must. */
  stdin: string;
  /** Names (not values) of the *_API_KEY / *_AUTH_TOKEN variables the CLI received. */
  credentialVars: string[];
  /** The GEMINI_SYSTEM_MD file's content, when set. */
  systemMd: string | null;
  role: string | null;
  ordinal: number;
  entry: number | null;
  fault: string | null;
  error: string | null;
}

const flag = (argv: string[], name: string): string | null => {
  const i = argv.indexOf(name);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : null;
};

/** A flag's value that is really the next flag is no value. */
const promptArg = (v: string | null): string | null => (v === null || v.startsWith('--') ? null : v);

/**
 * What the caller wrote to stdin; empty when stdin is /dev/null (as the adapters leave it for
 * short prompts). Node hands a child a socket, not a pipe, and may leave it non-blocking: read
 * until EOF, waiting out EAGAIN.
 */
function stdinText(): string {
  const kind = stdinKind();
  if (kind === '/dev/null' || kind === 'closed') return '';
  const chunks: Buffer[] = [];
  const buf = Buffer.alloc(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
      continue;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** codex exec options that take a value: everything else starting with - is a switch. */
const CODEX_VALUE_FLAGS = new Set(['-C', '--cd', '-s', '--sandbox', '--output-schema', '-o', '--output-last-message', '-m', '--model', '-c', '--config', '-p', '--profile', '-i', '--image']);

export function parseFakeCliArgv(cli: FakeCliName, argv: string[], env: NodeJS.ProcessEnv): FakeCliCall {
  switch (cli) {
    case 'claude':
      // Agent mode keeps Claude Code's own prompt and appends the role's. `-p` with no prompt after it: the prompt is on stdin.
      return { cli, argv, prompt: promptArg(flag(argv, '-p')) ?? stdinText(), system: flag(argv, '--system-prompt') ?? flag(argv, '--append-system-prompt'), model: flag(argv, '--model'), schema: flag(argv, '--json-schema'), lastMessageFile: null };
    case 'grok':
      return { cli, argv, prompt: flag(argv, '--single') ?? '', system: flag(argv, '--system-prompt-override'), model: flag(argv, '--model'), schema: flag(argv, '--json-schema'), lastMessageFile: null };
    case 'gemini': {
      const md = env.GEMINI_SYSTEM_MD;
      const system = md && existsSync(md) ? readFileSync(md, 'utf8') : null;
      return { cli, argv, prompt: flag(argv, '-p') ?? flag(argv, '--prompt') ?? '', system, model: flag(argv, '-m') ?? flag(argv, '--model'), schema: null, lastMessageFile: null };
    }
    case 'agy': {
      // agy has no system-prompt flag: the adapter puts the role prompt in the one prompt (-p's value).
      const schemaArg = flag(argv, '--json-schema');
      return {
        cli,
        argv,
        prompt: flag(argv, '-p') ?? flag(argv, '--print') ?? flag(argv, '--prompt') ?? '',
        system: null,
        model: flag(argv, '--model'),
        schema: schemaArg === null ? null : existsSync(schemaArg) ? readFileSync(schemaArg, 'utf8') : schemaArg,
        lastMessageFile: null,
      };
    }
    case 'codex': {
      const positional: string[] = [];
      for (let i = argv[0] === 'exec' ? 1 : 0; i < argv.length; i++) {
        if (CODEX_VALUE_FLAGS.has(argv[i])) i++;
        else if (argv[i] === '-' || !argv[i].startsWith('-')) positional.push(argv[i]);
      }
      const schemaFile = flag(argv, '--output-schema');
      return {
        cli,
        argv,
        // `-` (a prompt too long for the command line): the prompt is on stdin.
        prompt: positional[positional.length - 1] === '-' ? stdinText() : (positional[positional.length - 1] ?? ''),
        system: null,
        model: flag(argv, '-m') ?? flag(argv, '--model'),
        schema: schemaFile && existsSync(schemaFile) ? readFileSync(schemaFile, 'utf8') : null,
        lastMessageFile: flag(argv, '-o') ?? flag(argv, '--output-last-message'),
      };
    }
  }
}

/** The flags each adapter adds in agent mode (tools on, inside the worktree). */
export function isAgentMode(cli: FakeCliName, argv: string[]): boolean {
  switch (cli) {
    case 'claude':
      return flag(argv, '--permission-mode') === 'acceptEdits';
    case 'codex':
      return (flag(argv, '-s') ?? flag(argv, '--sandbox')) === 'workspace-write';
    case 'grok':
      return argv.includes('--always-approve');
    case 'gemini':
    case 'agy':
      return false;
  }
}

/** The scripted agent's edits, confined to the working directory like a real CLI's. */
function applyAgentEdits(edits: Record<string, string | null>): void {
  const root = process.cwd();
  for (const [rel, content] of Object.entries(edits)) {
    const target = path.resolve(root, rel);
    if (!target.startsWith(root + path.sep)) throw new Error(`fake agent: ${rel} is outside the working directory ${root}`);
    if (content === null) rmSync(target, { force: true });
    else {
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, content);
    }
  }
}

function readLog(path: string): FakeCliLogLine[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as FakeCliLogLine);
}

/** Reads the fake CLIs' invocation log (for assertions). */
export function readFakeCliLog(path: string): FakeCliLogLine[] {
  return readLog(path);
}

/** What this process can read of its parent's environment and memory: the text read, or the errno code. */
export function probeParent(): { pid: number; uid: number; environ: string; mem: string } {
  const read = (file: string, at: (fd: number) => number): string => {
    let fd: number;
    try {
      fd = openSync(`/proc/${process.ppid}/${file}`, 'r');
    } catch (e) {
      return (e as NodeJS.ErrnoException).code ?? String(e);
    }
    try {
      const buf = Buffer.alloc(64 * 1024);
      const n = readSync(fd, buf, 0, buf.length, at(fd));
      return buf.subarray(0, n).toString('latin1').replace(/[^\x20-\x7e]/g, ' ');
    } catch (e) {
      return (e as NodeJS.ErrnoException).code ?? String(e);
    } finally {
      closeSync(fd);
    }
  };
  // mem is read at the top of the parent's stack, where its environment strings live.
  const stackTop = (): number => {
    const m = /^([0-9a-f]+)-([0-9a-f]+) .*\[stack\]$/m.exec(read('maps', () => 0));
    return m ? Math.max(parseInt(m[1], 16), parseInt(m[2], 16) - 64 * 1024) : 0;
  };
  return { pid: process.ppid, uid: process.getuid?.() ?? -1, environ: read('environ', () => 0), mem: read('mem', stackTop) };
}

function withParentProbe(reply: FakeScriptEntry['reply']): FakeScriptEntry['reply'] {
  const probe = probeParent();
  return typeof reply === 'string' ? `${reply}\n[parent_probe ${JSON.stringify(probe)}]` : { ...reply, parent_probe: probe };
}

function stdinKind(): string {
  try {
    return readlinkSync('/proc/self/fd/0');
  } catch {
    return 'closed';
  }
}

/** The helper: ignores SIGTERM, says so on stdout, then idles until killed. */
const STUBBORN_HELPER = "process.on('SIGTERM', () => {}); process.stdout.write('ready\\n'); setInterval(() => {}, 1000);";

/**
 * A CLI that will not stop when asked: this process ignores SIGTERM and starts a helper in its
 * process group (not detached) that ignores it too, with no stdio of ours, so no pipe the
 * caller reads stays open because of it. The pids are written once both ignore SIGTERM.
 */
async function ignoreSigtermWithHelper(pidFile: string | undefined): Promise<void> {
  process.on('SIGTERM', () => undefined);
  // A real child process is what this fake is about: a test double of a CLI's own helper.
  const helper = spawn(process.execPath, ['-e', STUBBORN_HELPER], { stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise<void>((ready, failed) => {
    helper.once('error', failed);
    helper.stdout.once('data', () => ready());
  });
  helper.stdout.destroy();
  if (pidFile) writeFileSync(pidFile, `${process.pid}\n${helper.pid}\n`);
}

/**
 * The body of the fake `claude` / `codex` / `grok` / `gemini` / `agy` executables (libs/testing/bin):
 * answers from the script named by FAKE_LLM_SCRIPT, with the replay engine's rules; each
 * process is one call, so the position in the script is rebuilt from the FAKE_LLM_LOG lines.
 */
export async function runFakeCli(cli: FakeCliName, argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const scriptPath = env[FAKE_LLM_SCRIPT_ENV];
  if (!scriptPath) {
    process.stderr.write(`fake ${cli}: set ${FAKE_LLM_SCRIPT_ENV} to a script file\n`);
    return 2;
  }
  const logPath = env[FAKE_LLM_LOG_ENV] ?? `${scriptPath}.calls.jsonl`;
  const script = loadFakeScript(scriptPath);
  const past = readLog(logPath);
  const used = script.replies.map((_, i) => past.filter((l) => l.entry === i).length);
  const perRole: Record<string, number> = {};
  for (const l of past) perRole[l.role ?? ''] = (perRole[l.role ?? ''] ?? 0) + 1;
  const engine = new ScriptEngine(script, { used, perRole });
  const call = parseFakeCliArgv(cli, argv, env);
  const next = engine.next([call.system, call.prompt].filter(Boolean).join('\n'));
  const turn = next.entry?.probe_parent ? { ...next, entry: { ...next.entry, reply: withParentProbe(next.entry.reply) } } : next;
  const logLine: FakeCliLogLine = {
    cli,
    argv,
    cwd: process.cwd(),
    home: env.HOME ?? null,
    stdin: stdinKind(),
    credentialVars: Object.keys(env).filter((k) => /(_API_KEY|_AUTH_TOKEN)$/.test(k)).sort(),
    systemMd: cli === 'gemini' ? call.system : null,
    role: turn.role,
    ordinal: turn.ordinal,
    entry: turn.index,
    fault: turn.entry?.fault ?? null,
    error: turn.error,
  };
  appendFileSync(logPath, `${JSON.stringify(logLine)}\n`);
  const out = fakeCliOutput(call, turn, past.length + 1);
  if (out.hangMs) {
    if (out.ignoreSigterm) await ignoreSigtermWithHelper(turn.entry?.pid_file);
    await new Promise((r) => setTimeout(r, out.hangMs));
    return 0;
  }
  if (turn.entry?.edits && isAgentMode(cli, argv)) applyAgentEdits(turn.entry.edits);
  for (const [file, content] of Object.entries(out.files ?? {})) writeFileSync(file, content);
  if (out.stdout) process.stdout.write(out.stdout);
  if (out.stderr) process.stderr.write(out.stderr);
  return out.exitCode;
}
