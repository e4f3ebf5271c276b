import { z } from 'zod';

/**
 * Native tool calling, as every API provider adapter sends and reads it (issue 21: the engineer
 * on API providers in agent mode). Provider-neutral: each adapter maps these to its own wire
 * (Anthropic tool_use / tool_result blocks, OpenAI tool_calls and `tool` messages, Gemini
 * functionCall / functionResponse parts, Ollama's message.tool_calls).
 */

/** A tool offered to the model: its name, what it does, and its arguments as a JSON schema object. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** One tool the model called: the provider's id for it (made up when the wire has none), the name, the parsed arguments. */
export const ToolCall = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()),
});
export type ToolCall = z.infer<typeof ToolCall>;

/**
 * A provider's own record of an assistant turn, sent back as it came when the loop goes on with
 * the same provider type: models that think want their reasoning kept beside their calls
 * (Anthropic's thinking blocks with their signatures, Gemini's thoughtSignature on each
 * functionCall part) and refuse a rebuilt turn without it. Opaque to everything but the adapter
 * of `type`; another provider (a fallback) rebuilds the turn from the calls instead.
 */
export const NativeTurn = z.object({ type: z.string().min(1), content: z.unknown() });
export type NativeTurn = z.infer<typeof NativeTurn>;

/**
 * The reply to one turn of a tool loop, as the provider-worker records it on the call row:
 * the tools the model called (empty when it called none) and any text it wrote beside them.
 */
export const ToolTurn = z.object({
  tool_calls: z.array(ToolCall),
  text: z.string().default(''),
  native: NativeTurn.optional(),
});
export type ToolTurn = z.infer<typeof ToolTurn>;
