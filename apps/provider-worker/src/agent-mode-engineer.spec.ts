import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import type { Provider } from '@roundtable/providers';
import { ProviderError } from '@roundtable/providers';
import { runAgentModeEngineer } from './agent-mode-engineer';

/** The two ways agent mode cannot start; neither reaches the CLI. (The whole path runs in test/e2e/repo-workspace.) */
describe('runAgentModeEngineer', () => {
  const provider: Provider = { name: 'claude_cli', type: 'cli', run: jest.fn() };
  const call = {
    runId: 'run1',
    callId: 'run1-c5',
    label: 'I1',
    request: { messages: [], model: 'default', schemaName: 'Implementation', jsonSchema: {}, maxTokens: 100, temperature: 0, timeoutMs: 1000, role: 'engineer', ordinal: 0 },
  };
  const ds = {} as DataSource;

  it('without WORKSPACE_ROOT on this worker: a recorded error saying how to deploy it', async () => {
    const err = (await runAgentModeEngineer(ds, provider, undefined, call).catch((e: unknown) => e)) as ProviderError;
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.message).toMatch(/no WORKSPACE_ROOT: mount the test-runner's workspace volume at the same path/);
    expect(provider.run).not.toHaveBeenCalled();
  });

  it('with a WORKSPACE_ROOT that holds no worktree for the run: says which run and where it looked', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'rt-agent-root-'));
    try {
      const err = (await runAgentModeEngineer(ds, provider, root, call).catch((e: unknown) => e)) as ProviderError;
      expect(err.message).toBe(`agent mode needs the run's git worktree under WORKSPACE_ROOT=${root}, and there is none for run run1 (is the workspace volume mounted here?)`);
      expect(provider.run).not.toHaveBeenCalled();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
