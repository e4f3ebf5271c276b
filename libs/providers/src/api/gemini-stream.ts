import type { GenerateContentParameters, GenerateContentResponse, GoogleGenAI, Part } from '@google/genai';
import { safeDelta } from './delta-listener';

/** What the adapter reads of a generateContent reply, whether it came whole or streamed. */
export type GeminiReply = Pick<GenerateContentResponse, 'candidates' | 'usageMetadata' | 'modelVersion' | 'responseId' | 'promptFeedback'>;

/**
 * The request as generateContentStream, folded back into the one reply generateContent
 * returns: every chunk's parts in order (the adapter joins the text parts that are not
 * thoughts, as it does for a whole reply), the last finish reason, the last usage (each
 * chunk's is the running total), model and id. Text parts that are not thoughts go to onDelta.
 * The SDK's automatic continuation is off: resuming a dropped stream is a second request
 * behind the caller's back, and retries are the engine's decision. An HTTP failure is the
 * ApiError generateContent throws; the whole stream is bounded by the timeout.
 */
export async function streamedGenerate(
  client: GoogleGenAI,
  params: GenerateContentParameters,
  onDelta: (text: string) => void,
  timeoutMs: number,
): Promise<GeminiReply> {
  const stream = await client.models.generateContentStream({
    ...params,
    config: { ...params.config, automaticContinuation: false, abortSignal: AbortSignal.timeout(timeoutMs) },
  });
  const delta = safeDelta(onDelta);
  const parts: Part[] = [];
  let last: GenerateContentResponse | null = null;
  let finishReason: NonNullable<GenerateContentResponse['candidates']>[number]['finishReason'];
  let role: string | undefined;
  let sawCandidate = false;
  let usage: GenerateContentResponse['usageMetadata'];
  let promptFeedback: GenerateContentResponse['promptFeedback'];
  for await (const chunk of stream) {
    last = chunk;
    if (chunk.usageMetadata) usage = chunk.usageMetadata;
    if (chunk.promptFeedback) promptFeedback = chunk.promptFeedback;
    const candidate = chunk.candidates?.[0];
    if (!candidate) continue;
    sawCandidate = true;
    role ??= candidate.content?.role;
    if (candidate.finishReason !== undefined) finishReason = candidate.finishReason;
    for (const part of candidate.content?.parts ?? []) {
      parts.push(part);
      if (typeof part.text === 'string' && !part.thought) delta(part.text);
    }
  }
  return {
    candidates: sawCandidate ? [{ content: { role: role ?? 'model', parts }, ...(finishReason !== undefined ? { finishReason } : {}), index: 0 }] : undefined,
    usageMetadata: usage,
    modelVersion: last?.modelVersion,
    responseId: last?.responseId,
    promptFeedback,
  };
}
