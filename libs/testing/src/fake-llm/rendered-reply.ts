import type { FakeScriptEntry } from './fake-script';

/** What the fake model "wrote" for an entry, and the usage it reports. */
export interface RenderedReply {
  text: string;
  /** The reply as an object when it is well-formed JSON (what a tool call or structured output carries). */
  object: Record<string, unknown> | null;
  usage: { input: number; output: number; cached: number };
  /** The tools the model calls (entry `tool_calls`), empty when none. */
  toolCalls: ScriptedToolCall[];
}

export type ScriptedToolCall = NonNullable<FakeScriptEntry['tool_calls']>[number];

const approx = (s: string) => Math.ceil(s.length / 4);

export function renderReply(entry: FakeScriptEntry, prompt: string): RenderedReply {
  const full = typeof entry.reply === 'string' ? entry.reply : JSON.stringify(entry.reply);
  let text = full;
  let object: Record<string, unknown> | null = typeof entry.reply === 'string' ? parseObject(entry.reply) : entry.reply;
  if (entry.fault === 'malformed_json') {
    // half of the JSON: what a model cut off mid-object looks like
    text = full.slice(0, Math.max(1, Math.floor(full.length / 2)));
    object = null;
  } else if (entry.fault === 'empty' || entry.fault === 'cancelled') {
    text = '';
    object = null;
  }
  const usage = entry.usage
    ? { input: entry.usage.input_tokens, output: entry.usage.output_tokens, cached: entry.usage.cached_input_tokens }
    : { input: approx(prompt), output: approx(text), cached: 0 };
  return { text, object, usage, toolCalls: entry.tool_calls ?? [] };
}

function parseObject(s: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(s);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
