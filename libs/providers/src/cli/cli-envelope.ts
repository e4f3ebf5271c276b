/** Reading the JSON a CLI prints, tolerant of the spelling differences between CLIs and versions. */
export type Json = Record<string, unknown>;

export const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The envelope: stdout as one JSON object, or else its last line that is one (banners come first). */
export function lastJsonObject(stdout: string): Json | null {
  const whole = stdout.trim();
  if (!whole) return null;
  try {
    const v: unknown = JSON.parse(whole);
    if (isObj(v)) return v;
    // `--verbose` JSON output is the whole message list; the envelope is its result entry
    if (Array.isArray(v)) return (v.filter(isObj).filter((e) => e.type === 'result').pop() ?? v.filter(isObj).pop()) || null;
  } catch {
    // fall through to line by line
  }
  const lines = whole.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i].trim();
    if (!line.startsWith('{')) continue;
    try {
      const v: unknown = JSON.parse(line);
      if (isObj(v)) return v;
    } catch {
      // not this line
    }
  }
  return null;
}

/** Every line of a JSONL stream that is a JSON object (codex --json). */
export function jsonLines(stdout: string): Json[] {
  const out: Json[] = [];
  for (const line of stdout.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('{')) continue;
    try {
      const v: unknown = JSON.parse(t);
      if (isObj(v)) out.push(v);
    } catch {
      // a partial or non-JSON line
    }
  }
  return out;
}

/** The first of several spellings that holds a number (input_tokens, inputTokens, …). */
export function num(o: Json | null | undefined, ...keys: string[]): number | null {
  if (!o) return null;
  for (const k of keys) {
    const v = o[k];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
  }
  return null;
}

export function str(o: Json | null | undefined, ...keys: string[]): string | null {
  if (!o) return null;
  for (const k of keys) {
    const v = o[k];
    if (typeof v === 'string') return v;
  }
  return null;
}

/** An error field as words: a string, or an object's message. */
export function errorWords(v: unknown): string | null {
  if (typeof v === 'string' && v.trim()) return v;
  if (isObj(v)) return str(v, 'message', 'error') ?? JSON.stringify(v);
  return null;
}
