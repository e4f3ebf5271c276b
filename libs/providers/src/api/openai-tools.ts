import type OpenAI from 'openai';
import type { ProviderMessage, ToolCall, ToolSpec } from '../provider';
import { plainJsonSchema } from '../json/structured-schema';
import { toolArguments } from './tool-turn';

/** The tools as chat completions offers them (`tool_choice: 'auto'` goes beside them). */
export function openaiTools(tools: ToolSpec[]): OpenAI.Chat.ChatCompletionFunctionTool[] {
  return tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: plainJsonSchema(t.parameters) } }));
}

/** One message as chat completions takes it: an assistant's calls as `tool_calls` (arguments a JSON string), a result as a `tool` message. */
export function toChat(m: ProviderMessage): OpenAI.Chat.ChatCompletionMessageParam {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId ?? '', content: m.content };
  if (m.role === 'assistant' && m.toolCalls?.length) {
    return {
      role: 'assistant',
      content: m.content || null,
      tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })),
    };
  }
  return { role: m.role, content: m.content };
}

/** The function calls of a reply, their JSON-string arguments parsed. A custom (free-text) tool call is never offered, so never expected. */
export function openaiToolCalls(provider: string, message: OpenAI.Chat.ChatCompletionMessage | undefined): ToolCall[] {
  return (message?.tool_calls ?? [])
    .filter((c): c is OpenAI.Chat.ChatCompletionMessageFunctionToolCall => c.type === 'function')
    .map((c) => ({ id: c.id, name: c.function.name, arguments: toolArguments(provider, c.function.name, c.function.arguments) }));
}
