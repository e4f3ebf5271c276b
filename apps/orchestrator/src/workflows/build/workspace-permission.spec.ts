import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { agentJsonSchema, ProjectConfig, type ProjectConfigInput } from '@roundtable/contracts';
import { ProviderError, ReplayProvider } from '@roundtable/providers';
import { decide, initialBuildState, type AgentCallCommand, type BuildEvent, type BuildRunState } from '@roundtable/workflow';
import { loadPromptTemplates } from '../../prompt-templates';

/**
 * Role permissions with the real prompts (prompts/*.md) and the replay provider's prompt guard:
 * a critic with `workspace: none` is never shown the repository's file tree. The cassette forbids
 * a file name only the tree holds; the critic's call, as the orchestrator would queue it, passes
 * the guard with the permission and fails it without.
 */
const templates = loadPromptTemplates(path.resolve(__dirname, '../../../../../prompts'));
const TREE = ['calc.py', 'secret_payroll_export.py'];
const agent = { provider: 'replay', model: 'm' };

function criticCall(over: Partial<ProjectConfigInput>): AgentCallCommand {
  const config = ProjectConfig.parse({
    project: 'calc',
    objective: 'Add mul(a, b) to calc.py.',
    repo: '/srv/repos/calc',
    providers: { replay: { type: 'replay', cassette: '/dev/null' } },
    agents: { proposer: agent, critic: agent, reviser: agent, engineer: agent, validator: agent, synthesizer: agent },
    ...over,
  });
  let state: BuildRunState = initialBuildState('run1', config);
  const step = (event: BuildEvent) => {
    const r = decide(state, event, { templates });
    state = r.state;
    return r;
  };
  const started = step({ type: 'start' });
  const prepare = started.commands.find((c) => c.kind === 'workspace.prepare') as { opId: string };
  const proposer = step({ type: 'workspace_prepared', opId: prepare.opId, path: '/ws/run1', tree: TREE }).commands[0] as AgentCallCommand;
  const proposal = { proposal_id: 'P1', claim: 'c', approach: 'a', assumptions: [], evidence: [], risks: [], tests_required: ['mul(2, 3) == 6'], confidence: 0.8 };
  const reply = step({
    type: 'agent_call_finished',
    call: { id: proposer.callId, role: 'proposer', stage: 'PROPOSE', label: 'P1', status: 'completed', valid: true, parsed: proposal, responseText: JSON.stringify(proposal), error: null, errorCode: null, inputTokens: 10, outputTokens: 10, costUsd: 0, provider: 'replay', model: 'm', attempt: proposer.attempt, retry: 0 } as never,
  });
  return reply.commands.find((c): c is AgentCallCommand => c.kind === 'agent_call' && c.role === 'critic')!;
}

async function replayCritic(call: AgentCallCommand): Promise<unknown> {
  const dir = mkdtempSync(path.join(tmpdir(), 'rt-perm-'));
  const cassette = path.join(dir, 'cassette.yaml');
  const critique = { proposal_id: 'P1', verdict: 'ACCEPT', problems: [], counterarguments: ['fine'], tests_required: [], confidence: 0.7 };
  writeFileSync(cassette, toYaml({ replies: [{ role: 'critic', forbids: ['secret_payroll_export.py'], reply: critique }] }));
  const completion = await new ReplayProvider('replay', cassette).run({
    messages: call.messages,
    model: 'm',
    schemaName: call.schemaName,
    jsonSchema: agentJsonSchema('Critique'),
    maxTokens: 1000,
    temperature: 0,
    timeoutMs: 5000,
    role: 'critic',
    ordinal: 0,
  } as never);
  return completion.parsed;
}

describe('a critic with workspace: none, through the real prompts and the replay guard', () => {
  it('is never shown the file tree: the cassette forbidding a tree-only name passes', async () => {
    const call = criticCall({ permissions: { critic: { workspace: 'none' } } });
    await expect(replayCritic(call)).resolves.toMatchObject({ verdict: 'ACCEPT' });
  });

  it('with the default (read), the same guard fails: the tree is in its prompt', async () => {
    const call = criticCall({});
    await expect(replayCritic(call)).rejects.toThrow(ProviderError);
    await expect(replayCritic(call)).rejects.toThrow('the prompt contains forbidden "secret_payroll_export.py"');
  });
});
