import type { Json } from './cli-envelope';
import { isObj, lastJsonObject, num } from './cli-envelope';

/**
 * JSON text with the control characters inside its strings escaped. agy 1.1.8+ writes the
 * `response` of its `--output-format json` envelope with raw newlines in it
 * (google-antigravity/antigravity-cli#702), which strict JSON.parse refuses; outside strings
 * a newline is whitespace and stays as it is.
 */
export function escapeControlCharsInStrings(text: string): string {
  let out = '';
  let inString = false;
  let escaped = false;
  for (const ch of text) {
    if (!inString) {
      if (ch === '"') inString = true;
      out += ch;
      continue;
    }
    if (escaped) {
      escaped = false;
      out += ch;
    } else if (ch === '\\') {
      escaped = true;
      out += ch;
    } else if (ch === '"') {
      inString = false;
      out += ch;
    } else if (ch < ' ') {
      out += ch === '\n' ? '\\n' : ch === '\r' ? '\\r' : ch === '\t' ? '\\t' : `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
    } else {
      out += ch;
    }
  }
  return out;
}

/**
 * agy's envelope: from the last line that opens an object to the end of stdout, with its
 * strings' raw newlines escaped (the envelope is the last thing agy prints, and its raw newlines
 * split it over several lines, so a line of the reply alone, `{}`, is never taken for it);
 * else the usual last JSON object, for an envelope with text after it.
 */
export function agyEnvelope(stdout: string): Json | null {
  const lines = stdout.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!lines[i].trimStart().startsWith('{')) continue;
    try {
      const v: unknown = JSON.parse(escapeControlCharsInStrings(lines.slice(i).join('\n')));
      if (isObj(v)) return v;
    } catch {
      // not an envelope from this line on
    }
  }
  return lastJsonObject(stdout);
}

/**
 * agy's `usage` as a Completion's. Whether its input_tokens already hold the cache reads is not
 * documented; its total_tokens says: when the total is input + output + thinking + cache reads,
 * the reads were counted apart (Anthropic-style) and are added in; otherwise (Gemini-style,
 * total = input + output + thinking) they are part of input_tokens already. Thinking tokens are
 * billed as output, so they count as output.
 */
export function agyUsage(usage: Json | null): { inputTokens: number; outputTokens: number; cachedInputTokens: number } {
  const input = num(usage, 'input_tokens') ?? 0;
  const output = (num(usage, 'output_tokens') ?? 0) + (num(usage, 'thinking_tokens') ?? 0);
  const cached = num(usage, 'cache_read_tokens') ?? 0;
  const readsApart = cached > 0 && num(usage, 'total_tokens') === input + output + cached;
  return { inputTokens: readsApart ? input + cached : input, outputTokens: output, cachedInputTokens: cached };
}
