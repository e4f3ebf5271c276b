import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';
import type { FakeCliName } from './fake-cli-output';
import { FAKE_LLM_LOG_ENV, FAKE_LLM_SCRIPT_ENV } from './fake-cli';

const CLIS: readonly FakeCliName[] = ['claude', 'codex', 'grok', 'gemini', 'agy'];
const SOURCE_DIR = __dirname;
const ENTRY = path.join(SOURCE_DIR, 'fake-cli.ts');

/**
 * The fake `claude`, `codex`, `grok`, `gemini` and `agy` executables, as the CLI user can run them. A
 * provider-worker running as root runs every CLI as the operator policy's cli.run_as user
 * (nobody), who may not be able to reach this checkout at all (a clone under a 0700 directory,
 * a home directory): so the fakes are bundled, with their dependencies, into a directory of
 * their own under the system's temporary directory, readable and runnable by anyone, named by a
 * hash of their sources (rebuilt when a source changes, shared by every test that runs at once).
 * libs/testing/bin holds the same executables for use by hand, from the checkout.
 */
function installFakeClis(): string {
  const sources = readdirSync(SOURCE_DIR)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts') && f !== 'fake-cli-bin.ts')
    .sort()
    .map((f) => readFileSync(path.join(SOURCE_DIR, f), 'utf8'));
  const key = createHash('sha256').update(sources.join('\0')).digest('hex').slice(0, 16);
  const dir = path.join(tmpdir(), `roundtable-fake-cli-${key}`);
  if (CLIS.every((cli) => existsSync(path.join(dir, cli)))) return dir;
  // Built beside, then renamed into place: a test starting a fake while another builds never sees half of it.
  const building = `${dir}.${process.pid}.tmp`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  buildSync({
    entryPoints: [ENTRY],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outfile: path.join(building, 'fake-cli.js'),
    logLevel: 'error',
  });
  for (const cli of CLIS) {
    writeFileSync(
      path.join(building, cli),
      `#!/usr/bin/env node
// Fake \`${cli}\` CLI for tests (built from libs/testing/src/fake-llm by fake-cli-bin.ts).
require('./fake-cli.js').runFakeCli('${cli}', process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write('fake ${cli} crashed: ' + (e && e.stack ? e.stack : e) + '\\n');
    process.exit(70);
  },
);
`,
      { mode: 0o755 },
    );
  }
  chmodSync(building, 0o755);
  try {
    renameSync(building, dir);
  } catch {
    // Another process installed the same sources first: theirs is as good as ours.
    rmSync(building, { recursive: true, force: true });
  }
  return dir;
}

/** Where the fake CLIs are: put it first on a worker's PATH, or name its files in cli.binaries. */
export const FAKE_CLI_BIN_DIR = installFakeClis();

/**
 * The environment that makes a CLI adapter find the fakes first on PATH and answer from a
 * script; merge it over the environment handed to createProvider.
 */
export function fakeCliEnv(scriptPath: string, logPath: string, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  openToCliUser(path.dirname(scriptPath));
  openToCliUser(path.dirname(logPath));
  return { ...base, PATH: `${FAKE_CLI_BIN_DIR}${path.delimiter}${base.PATH ?? ''}`, [FAKE_LLM_SCRIPT_ENV]: scriptPath, [FAKE_LLM_LOG_ENV]: logPath };
}

/**
 * A worker running as root runs each CLI as the operator policy's cli.run_as user (nobody), not
 * as the test: the fakes must read their script and write their log from a directory the test
 * made (mkdtemp: 0700, root's). Opened like /tmp (world-writable, sticky), and only a directory
 * this process owns: a test's own scratch directory, never a system one.
 */
function openToCliUser(dir: string): void {
  let st;
  try {
    st = statSync(dir);
  } catch {
    return; // not made yet: the test makes it open itself
  }
  if (st.isDirectory() && st.uid === process.getuid?.() && (st.mode & 0o1777) !== 0o1777) chmodSync(dir, st.mode | 0o1777);
}
