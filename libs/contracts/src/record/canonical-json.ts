/**
 * The one text a JSON value hashes as: object keys sorted (by UTF-16 code unit, as Array.sort
 * does), no whitespace, and otherwise JSON.stringify's rules (undefined members dropped, a
 * non-finite number as null, toJSON honoured). Postgres' jsonb keeps no key order, so a hash over
 * a payload read back from a row must not depend on it.
 */
export function canonicalJson(value: unknown): string {
  const text = canonical(value, false);
  return text === undefined ? 'null' : text;
}

function canonical(value: unknown, inArray: boolean): string | undefined {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: () => unknown }).toJSON();
  }
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return inArray ? 'null' : undefined;
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'bigint') return value.toString();
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v, true)).join(',')}]`;
  const members: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const text = canonical((value as Record<string, unknown>)[key], false);
    if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${members.join(',')}}`;
}
