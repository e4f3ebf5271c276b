import type { FakeScriptInput } from '@roundtable/testing';
import type { ProviderMessage, ProviderRequest, ToolCall, ToolSpec } from '../provider';
import { proposerRequest } from '../provider-request.fixture';

/** A tool loop as the adapter tests run it: the engineer reads two files, then answers. */
export const READ_FILE: ToolSpec = {
  name: 'read_file',
  description: 'Read a file of the worktree.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};
export const FILE = 'def add(a, b):\n    return a + b\n';

export const TOOL_SCRIPT: FakeScriptInput = {
  replies: [
    { role: 'engineer', reply: '', tool_calls: [{ name: 'read_file', arguments: { path: 'calc.py' } }, { name: 'read_file', arguments: { path: 'test_calc.py' } }] },
    // the second turn is answered only if the tool result reached the prompt
    { role: 'engineer', reply: 'calc.py adds.', expects: ['def add'] },
  ],
};

/** A turn of the loop: the engineer's prompt, then what the loop has done so far. */
export function toolRequest(history: ProviderMessage[] = [], overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return proposerRequest({
    messages: [{ role: 'system', content: 'You are the engineer. Use the tools.' }, { role: 'user', content: 'Fix calc.py.' }, ...history],
    tools: [READ_FILE],
    // a tool turn is never streamed: the listener must not be called
    onDelta: () => {
      throw new Error('a tool turn streamed');
    },
    role: 'engineer',
    ...overrides,
  });
}

/** The history after the first turn: the calls, then a result for each (the file's content). */
export const afterCalls = (calls: ToolCall[]): ProviderMessage[] => [
  { role: 'assistant', content: '', toolCalls: calls },
  ...calls.map((c): ProviderMessage => ({ role: 'tool', content: FILE, toolCallId: c.id, toolName: c.name })),
];

export const EXPECTED_CALLS = [
  { id: expect.any(String), name: 'read_file', arguments: { path: 'calc.py' } },
  { id: expect.any(String), name: 'read_file', arguments: { path: 'test_calc.py' } },
];
