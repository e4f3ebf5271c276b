import type { Message, Tool, ToolCall as OllamaToolCall } from 'ollama';
import type { ProviderMessage, ToolCall, ToolSpec } from '../provider';
import { plainJsonSchema } from '../json/structured-schema';
import { madeUpCallId, toolArguments } from './tool-turn';

/** The tools as /api/chat offers them (Ollama has no tool choice: the model always may choose). */
export function ollamaTools(tools: ToolSpec[]): Tool[] {
  return tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: plainJsonSchema(t.parameters) as Tool['function']['parameters'] } }));
}

/** One message as /api/chat takes it: an assistant's calls as `tool_calls` (arguments an object), a result as a `tool` message naming its tool (Ollama has no call ids). */
export function ollamaMessage(m: ProviderMessage): Message {
  if (m.role === 'tool') return { role: 'tool', content: m.content, ...(m.toolName ? { tool_name: m.toolName } : {}) };
  if (m.role === 'assistant' && m.toolCalls?.length) {
    return { role: 'assistant', content: m.content, tool_calls: m.toolCalls.map((c) => ({ function: { name: c.name, arguments: c.arguments } })) };
  }
  return { role: m.role, content: m.content };
}

/** The calls of a reply, in order, each given `call_<index>` for an id. */
export function ollamaToolCalls(provider: string, calls: OllamaToolCall[] | undefined): ToolCall[] {
  return (calls ?? []).map((c, i) => ({ id: madeUpCallId(i), name: c.function.name, arguments: toolArguments(provider, c.function.name, c.function.arguments) }));
}
