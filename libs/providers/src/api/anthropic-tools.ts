import type Anthropic from '@anthropic-ai/sdk';
import type { ProviderMessage, ToolCall, ToolSpec } from '../provider';
import { plainJsonSchema } from '../json/structured-schema';
import { toolArguments, withToolResultsGrouped } from './tool-turn';

/** The tools as the Messages API offers them (`tool_choice: auto` goes beside them). */
export function anthropicTools(tools: ToolSpec[]): Anthropic.Tool[] {
  return tools.map((t) => ({ name: t.name, description: t.description, input_schema: plainJsonSchema(t.parameters) as Anthropic.Tool.InputSchema }));
}

/**
 * The history as Messages API turns: an assistant's calls are tool_use blocks after its text,
 * and a run of tool results is one user turn of tool_result blocks (the API wants every result
 * of a turn in the message that follows it).
 */
export function anthropicMessages(messages: ProviderMessage[]): Anthropic.MessageParam[] {
  return withToolResultsGrouped(messages).map((m): Anthropic.MessageParam => {
    if (Array.isArray(m)) {
      return { role: 'user', content: m.map((r) => ({ type: 'tool_result', tool_use_id: r.toolCallId ?? '', content: r.content })) };
    }
    // The turn as Anthropic returned it (thinking blocks and their signatures first): a model that thought wants it back whole.
    if (m.role === 'assistant' && m.native?.type === 'anthropic') return { role: 'assistant', content: m.native.content as Anthropic.ContentBlockParam[] };
    if (m.role === 'assistant' && m.toolCalls?.length) {
      const text: Anthropic.ContentBlockParam[] = m.content ? [{ type: 'text', text: m.content }] : [];
      return { role: 'assistant', content: [...text, ...m.toolCalls.map((c) => ({ type: 'tool_use' as const, id: c.id, name: c.name, input: c.arguments }))] };
    }
    return { role: m.role as 'user' | 'assistant', content: m.content };
  });
}

/** The tool_use blocks of a reply, in order. */
export function anthropicToolCalls(provider: string, content: Anthropic.ContentBlock[]): ToolCall[] {
  return content
    .filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')
    .map((b) => ({ id: b.id, name: b.name, arguments: toolArguments(provider, b.name, b.input) }));
}
