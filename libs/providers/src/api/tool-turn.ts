import type { ProviderMessage } from '../provider';
import { ProviderError } from '../provider';

/**
 * The conversation without its system messages, each run of consecutive `tool` messages
 * gathered into one group: Anthropic and Gemini take a turn's tool results as one user message.
 */
export function withToolResultsGrouped(messages: ProviderMessage[]): Array<ProviderMessage | ProviderMessage[]> {
  const out: Array<ProviderMessage | ProviderMessage[]> = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    const last = out[out.length - 1];
    if (m.role === 'tool' && Array.isArray(last)) last.push(m);
    else out.push(m.role === 'tool' ? [m] : m);
  }
  return out;
}

/** Gemini and Ollama may send a call without an id; the tool loop needs one to pair the result with. */
export const madeUpCallId = (index: number) => `call_${index}`;

/**
 * A call's arguments as the object ToolCall holds. Anything else is the model's mistake, not a
 * call with no arguments: running the tool with `{}` would hide it.
 */
export function toolArguments(provider: string, name: string, args: unknown): Record<string, unknown> {
  let value = args;
  if (typeof args === 'string') {
    try {
      value = JSON.parse(args);
    } catch {
      value = null;
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ProviderError('PROVIDER_ERROR', `${provider}: tool call ${name} has arguments that are not a JSON object`, false);
  }
  return value as Record<string, unknown>;
}
