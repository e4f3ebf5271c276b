import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fakeCliEnv, readFakeCliLog } from '@roundtable/testing';
import type { FakeCliLogLine, FakeScriptInput } from '@roundtable/testing';

/**
 * A scratch directory with a fake-CLI script and log, and the environment that puts the fakes on
 * PATH. `script` may be made from the directory, for a script that names files in it.
 */
export function fakeCliKit(script: FakeScriptInput | ((dir: string) => FakeScriptInput), base: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME }) {
  const dir = mkdtempSync(path.join(tmpdir(), 'rt-fake-cli-'));
  const scriptPath = path.join(dir, 'script.json');
  const logPath = path.join(dir, 'calls.jsonl');
  writeFileSync(scriptPath, JSON.stringify(typeof script === 'function' ? script(dir) : script));
  return {
    /** The kit's scratch directory, open to the CLI user (where a fake may write files of its own). */
    dir,
    env: fakeCliEnv(scriptPath, logPath, base),
    log: (): FakeCliLogLine[] => readFakeCliLog(logPath),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
