/**
 * A value as canonical JSON: object keys in code-point order at every depth, no whitespace,
 * `undefined` members left out (as JSON.stringify does). Two preregistrations that differ only in
 * key order or formatting are the same text, so they hash the same (sha256 of this text is the
 * preregistration's hash: libs/persistence experiment-hash.ts), and a run's events and calls
 * hash the same however jsonb ordered their keys (libs/contracts record/record-hash.ts). A value
 * with toJSON (a Date) is written as JSON.stringify would.
 */
export function canonicalJson(value: unknown): string {
  // Strings first: most of what is hashed (a call's messages, an event's payload) is strings.
  if (typeof value === 'string') return JSON.stringify(value);
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return canonicalJson((value as { toJSON: () => unknown }).toJSON());
  }
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    if (text === undefined) throw new Error(`canonicalJson: ${typeof value} has no JSON form`);
    return text;
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  // Keys are distinct, so the default sort (by UTF-16 code units) orders them as `a < b` does;
  // one pass appends the members, without the entries' arrays.
  const keys = Object.keys(value).sort();
  let out = '';
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined) continue;
    out += `${out ? ',' : ''}${JSON.stringify(k)}:${canonicalJson(v)}`;
  }
  return `{${out}}`;
}
