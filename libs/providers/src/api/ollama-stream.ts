import type { ChatRequest, ChatResponse, Ollama } from 'ollama';
import { safeDelta } from './delta-listener';

/**
 * The chat as Ollama's NDJSON stream (`stream: true`), folded back into the one reply the
 * non-streaming chat returns: the content pieces joined, and the final (`done`) line's
 * counts, stop reason and model. Each piece goes to onDelta. The adapter's fetch bounds the
 * whole body with the timeout; an HTTP failure is the ResponseError the whole chat throws.
 */
export async function streamedChat(client: Ollama, params: Omit<ChatRequest, 'stream'>, onDelta: (text: string) => void): Promise<ChatResponse> {
  const stream = await client.chat({ ...params, stream: true });
  const delta = safeDelta(onDelta);
  let content = '';
  let last: ChatResponse | null = null;
  for await (const part of stream) {
    last = part;
    const piece = part.message?.content ?? '';
    content += piece;
    delta(piece);
  }
  if (!last) throw new Error('ollama: the stream ended before its first line');
  return { ...last, message: { ...last.message, role: last.message?.role ?? 'assistant', content } };
}
