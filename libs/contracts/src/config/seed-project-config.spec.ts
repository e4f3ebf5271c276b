import { loadProjectConfig } from './load-project-config';
import { DEFAULT_ROLE_PERMISSIONS, mayReadWorkspace, mayRunTests, permissionOf } from './role-permissions';

/**
 * The seed's own examples/project.yaml (seed §4), with its reviewer and its permissions table,
 * loads as written. The one change from the seed's text: each `${VAR}` inside `{ }` is quoted,
 * which YAML needs (a bare `{` there opens a mapping; the loader refuses it with that hint, see
 * load-project-config.spec.ts), and the indentation the seed's text lost is restored.
 */
const SEED_PROJECT_YAML = `
project:
  name: dd-demo
  objective: >
    Implement max_drawdown(equity: list[float]) -> float in dd.py, returning the
    largest peak-to-trough decline as a positive fraction (0.0 if none), with pytest tests.
  requirements:
    - "Returns 0.0 for monotonically increasing or empty series"
    - "Handles a series that ends at its trough"
    - "Pure Python, no third-party dependencies"
repo: ~/some/project # ANY directory or git repo. Omit for a greenfield task.
# Each run works in its own copy (git worktree if repo is git,
# else a file copy) under runs/<project>/<run_id>/workspace.
# The original is never modified until a human merges (M4).
autonomy: 2 # 0 advise, 1 propose, 2 write to workspace + run tests
budget:
  max_rounds: 3 # critique → revise cycles
  max_fix_rounds: 1 # engineer retries after failing tests
  max_calls: 12
  max_tokens: 200000
  max_cost_usd: 5.00
  max_seconds: 900
  per_provider:
    anthropic: { max_tokens: 120000 }
    ollama: { max_tokens: 200000 }
providers:
  anthropic: { type: anthropic, api_key_env: ANTHROPIC_API_KEY }
  openai: { type: openai_compat, api_key_env: OPENAI_API_KEY }
  xai: { type: openai_compat, api_key_env: XAI_API_KEY, base_url: https://api.x.ai/v1 }
  gemini: { type: gemini, api_key_env: GEMINI_API_KEY }
  ollama: { type: ollama, host: http://localhost:11434 }
agents:
  proposer: { provider: anthropic, model: "\${ANTHROPIC_MODEL}" }
  critic: { provider: xai, model: "\${XAI_MODEL}" }
  reviser: { provider: anthropic, model: "\${ANTHROPIC_MODEL}" }
  engineer: { provider: openai, model: "\${OPENAI_MODEL}" } # Codex-class model
  validator: { provider: gemini, model: "\${GEMINI_MODEL}" }
  reviewer: { provider: ollama, model: qwen3:30b-a3b } # optional second, local review
  synthesizer: { provider: anthropic, model: "\${ANTHROPIC_MODEL}" }
permissions: # what the orchestrator will DO with a role's output
  proposer: { workspace: none, run_tests: false }
  critic: { workspace: read, run_tests: false }
  reviser: { workspace: none, run_tests: false }
  engineer: { workspace: write, run_tests: false }
  validator: { workspace: read, run_tests: true }
  synthesizer: { workspace: read, run_tests: false }
`;

const ENV = {
  HOME: '/home/u',
  ANTHROPIC_API_KEY: 'k',
  OPENAI_API_KEY: 'k',
  XAI_API_KEY: 'k',
  GEMINI_API_KEY: 'k',
  ANTHROPIC_MODEL: 'claude-sonnet-4-5',
  XAI_MODEL: 'grok-4',
  OPENAI_MODEL: 'gpt-5-codex',
  GEMINI_MODEL: 'gemini-2.5-pro',
};

describe("the seed's project.yaml", () => {
  const cfg = loadProjectConfig(SEED_PROJECT_YAML, { env: ENV });

  it('loads with its optional reviewer on the local model', () => {
    expect(cfg.project).toBe('dd-demo');
    expect(cfg.repo).toBe('/home/u/some/project');
    expect(cfg.agents.reviewer).toMatchObject({ provider: 'ollama', model: 'qwen3:30b-a3b' });
    expect(cfg.agents.validator).toMatchObject({ provider: 'gemini', model: 'gemini-2.5-pro' });
  });

  it("reads the seed's permissions table, and the reviewer (not in the table) gets its default", () => {
    expect(permissionOf(cfg, 'proposer')).toEqual({ workspace: 'none', run_tests: false });
    expect(permissionOf(cfg, 'validator')).toEqual({ workspace: 'read', run_tests: true });
    expect(permissionOf(cfg, 'engineer')).toEqual({ workspace: 'write', run_tests: false });
    expect(cfg.permissions?.reviewer).toBeUndefined();
    expect(permissionOf(cfg, 'reviewer')).toEqual({ workspace: 'read', run_tests: false });
  });

  it('matches the defaults a project without permissions gets, role for role', () => {
    for (const [role, permission] of Object.entries(cfg.permissions ?? {})) {
      expect([role, permission]).toEqual([role, DEFAULT_ROLE_PERMISSIONS[role as keyof typeof DEFAULT_ROLE_PERMISSIONS]]);
    }
  });
});

describe('permissionOf, mayReadWorkspace, mayRunTests', () => {
  it('give the defaults without a permissions map', () => {
    const none = { permissions: undefined };
    expect(permissionOf(none, 'critic')).toEqual({ workspace: 'read', run_tests: false });
    expect(mayReadWorkspace(none, 'proposer')).toBe(false);
    expect(mayReadWorkspace(none, 'critic')).toBe(true);
    expect(mayRunTests(none, 'validator')).toBe(true);
    expect(mayRunTests(none, 'engineer')).toBe(false);
  });

  it("use the project's permission for a role it names, the default for the others", () => {
    const cfg = { permissions: { critic: { workspace: 'none' as const, run_tests: false }, engineer: { workspace: 'write' as const, run_tests: true } } };
    expect(mayReadWorkspace(cfg, 'critic')).toBe(false);
    expect(mayReadWorkspace(cfg, 'validator')).toBe(true);
    expect(mayRunTests(cfg, 'engineer')).toBe(true);
    expect(mayRunTests(cfg, 'validator')).toBe(true);
  });
});
