import type OpenAI from 'openai';
import { safeDelta } from './delta-listener';

type Params = OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;

/**
 * The request as a stream (`stream: true`, usage asked for in the last chunk), folded back
 * into the ChatCompletion the non-streaming call returns, so the adapter builds one Completion
 * either way. Content deltas go to onDelta; a refusal streams as `refusal` deltas and is kept
 * apart, as the whole reply keeps it. An HTTP failure (the 400 a downgrade answers) is thrown
 * by `create` before the first chunk, the same APIError the non-streaming call throws. The
 * whole stream is bounded by the timeout, not only its first byte.
 */
export async function streamedCompletion(
  client: OpenAI,
  params: Params,
  onDelta: (text: string) => void,
  timeoutMs: number,
): Promise<{ data: OpenAI.Chat.ChatCompletion; request_id: string | null }> {
  const { data: stream, request_id } = await client.chat.completions
    .create({ ...params, stream: true, stream_options: { include_usage: true } }, { signal: AbortSignal.timeout(timeoutMs) })
    .withResponse();
  const delta = safeDelta(onDelta);
  let id = '';
  let model = params.model;
  let created = 0;
  let content: string | null = null;
  let refusal: string | null = null;
  // Kept null when no chunk said why it stopped: the Completion's stopReason is then null, as a whole reply's would be.
  let finish: OpenAI.Chat.ChatCompletion.Choice['finish_reason'] | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  let sawChoice = false;
  for await (const chunk of stream) {
    id ||= chunk.id;
    model = chunk.model || model;
    created ||= chunk.created;
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    sawChoice = true;
    if (typeof choice.delta?.content === 'string') {
      content = (content ?? '') + choice.delta.content;
      delta(choice.delta.content);
    }
    if (typeof choice.delta?.refusal === 'string') refusal = (refusal ?? '') + choice.delta.refusal;
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  const data: OpenAI.Chat.ChatCompletion = {
    id,
    object: 'chat.completion',
    created,
    model,
    // No choice at all stays no choice: the adapter reports it as the whole reply's would be.
    choices: sawChoice ? [{ index: 0, message: { role: 'assistant', content, refusal }, finish_reason: finish as OpenAI.Chat.ChatCompletion.Choice['finish_reason'], logprobs: null }] : [],
    ...(usage ? { usage } : {}),
  };
  return { data, request_id };
}
