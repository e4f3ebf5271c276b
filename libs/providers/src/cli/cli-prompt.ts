import type { ProviderMessage } from '../provider';

/**
 * A CLI takes one prompt (plus, for some, a system prompt), not a message list. A repair
 * call (user, assistant, user) becomes one prompt that shows the earlier reply as such.
 */
export function cliPrompt(messages: ProviderMessage[]): { system: string | null; prompt: string } {
  const system = messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n\n');
  const turns = messages.filter((m) => m.role !== 'system');
  const parts = turns.map((m, i) => {
    if (m.role === 'assistant') return `--- Your previous reply ---\n${m.content}`;
    if (m.role === 'tool') return `--- Result of tool ${m.toolName ?? m.toolCallId ?? '(unnamed)'} ---\n${m.content}`;
    return i === 0 ? m.content : `--- Follow-up ---\n${m.content}`;
  });
  return { system: system || null, prompt: parts.join('\n\n') };
}

/** For CLIs with no system-prompt override (codex, gemini without GEMINI_SYSTEM_MD): one prompt. */
export function inlineSystem(system: string | null, prompt: string): string {
  return system ? `${system}\n\n${prompt}` : prompt;
}
