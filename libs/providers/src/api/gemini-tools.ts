import { FunctionCallingConfigMode } from '@google/genai';
import type { Content, GenerateContentConfig, Part } from '@google/genai';
import type { ProviderMessage, ToolCall, ToolSpec } from '../provider';
import { plainJsonSchema } from '../json/structured-schema';
import { madeUpCallId, toolArguments, withToolResultsGrouped } from './tool-turn';

/** The tools as function declarations (a JSON schema each), the model choosing (mode AUTO). */
export function geminiToolConfig(tools: ToolSpec[]): Pick<GenerateContentConfig, 'tools' | 'toolConfig'> {
  return {
    tools: [{ functionDeclarations: tools.map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: plainJsonSchema(t.parameters) })) }],
    toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } },
  };
}

/**
 * The history as Gemini contents: an assistant's calls are functionCall parts of its model
 * turn, and a run of tool results is one user turn of functionResponse parts (which Gemini
 * pairs with the calls by name and order, by id when there is one).
 */
export function geminiContents(messages: ProviderMessage[]): Content[] {
  return withToolResultsGrouped(messages).map((m): Content => {
    if (Array.isArray(m)) {
      return { role: 'user', parts: m.map((r) => ({ functionResponse: { id: r.toolCallId, name: r.toolName, response: { content: r.content } } })) };
    }
    // The model turn as Gemini returned it: each functionCall part keeps its thoughtSignature, which Gemini 3 checks.
    if (m.role === 'assistant' && m.native?.type === 'gemini') return { role: 'model', parts: m.native.content as Part[] };
    if (m.role === 'assistant' && m.toolCalls?.length) {
      const text: Part[] = m.content ? [{ text: m.content }] : [];
      return { role: 'model', parts: [...text, ...m.toolCalls.map((c) => ({ functionCall: { id: c.id, name: c.name, args: c.arguments } }))] };
    }
    return { role: m.role === 'assistant' ? 'model' : 'user', parts: [{ text: m.content }] };
  });
}

/** The functionCall parts of a reply, in order; one without an id gets `call_<index>`. */
export function geminiToolCalls(provider: string, parts: Part[]): ToolCall[] {
  return parts
    .filter((p) => p.functionCall)
    .map((p, i) => {
      const call = p.functionCall!;
      const name = call.name ?? '';
      // a call with no arguments comes without args
      return { id: call.id || madeUpCallId(i), name, arguments: toolArguments(provider, name, call.args ?? {}) };
    });
}
