import { agentJsonSchema } from '@roundtable/contracts';
import type { ProviderRequest } from './provider';

/** A Proposal the zod schema accepts, for scripted replies in adapter tests. */
export const PROPOSAL = {
  proposal_id: 'P1',
  claim: 'One pass over the series, tracking the running peak.',
  approach: 'Keep the peak; the largest (peak - x) / peak is the answer.',
  assumptions: ['equity is positive'],
  evidence: ['the definition of maximum drawdown'],
  risks: ['rounding'],
  tests_required: ['[100, 80, 120, 60] -> 0.5'],
  confidence: 0.8,
};

/** A proposer call as the worker builds it: preamble system prompt, one user turn, the Proposal schema. */
export function proposerRequest(overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    messages: [
      { role: 'system', content: 'You are the proposer in a team of specialist agents.\nReply with JSON only.' },
      { role: 'user', content: 'Objective: compute the maximum drawdown of an equity series.' },
    ],
    model: 'test-model',
    schemaName: 'Proposal',
    jsonSchema: agentJsonSchema('Proposal'),
    maxTokens: 1000,
    temperature: 0.2,
    timeoutMs: 5_000,
    role: 'proposer',
    ordinal: 0,
    ...overrides,
  };
}
