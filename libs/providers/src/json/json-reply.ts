/**
 * The JSON a model wrote, or null. Tolerates what models add around it when nothing forces
 * the format (a ```json fence, a sentence before the object); never repairs the JSON itself:
 * a broken reply stays broken so the repair call sees what the model really wrote.
 */
export function parseJsonReply(text: string | null | undefined): unknown | null {
  if (!text) return null;
  const trimmed = text.trim();
  if (!trimmed) return null;
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/i.exec(trimmed);
  const candidates = [fenced ? fenced[1] : trimmed];
  const first = trimmed.indexOf('{');
  const last = trimmed.lastIndexOf('}');
  if (first > 0 && last > first) candidates.push(trimmed.slice(first, last + 1));
  for (const c of candidates) {
    try {
      const v: unknown = JSON.parse(c);
      if (v !== null && typeof v === 'object') return v;
    } catch {
      // try the next candidate
    }
  }
  return null;
}
