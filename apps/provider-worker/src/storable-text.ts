import { unstorableCharacters } from '@roundtable/contracts';

/**
 * Postgres text and jsonb cannot hold NUL (U+0000) nor a lone UTF-16 surrogate (JSON.stringify
 * writes one as `\udXXX`, which jsonb refuses). A reply that holds one would fail the write of
 * its outcome, and the redelivered job would then ask (and pay) the provider again. So those
 * characters are stored as their 6-character `\uXXXX` text, and the row says so
 * (response_escaped); everything else is stored exactly as received.
 */
const UNSTORABLE = unstorableCharacters();

const escapeOne = (ch: string) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;

export interface Storable<T> {
  value: T;
  /** Whether anything had to be escaped. */
  escaped: boolean;
}

export function storableText(text: string): Storable<string> {
  UNSTORABLE.lastIndex = 0;
  if (!UNSTORABLE.test(text)) return { value: text, escaped: false };
  return { value: text.replace(UNSTORABLE, escapeOne), escaped: true };
}

/** Every string in a JSON value, keys included, made storable. */
export function storableJson<T>(value: T): Storable<T> {
  let escaped = false;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const s = storableText(v);
      escaped ||= s.escaped;
      return s.value;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [walk(k) as string, walk(x)]));
    return v;
  };
  const out = walk(value) as T;
  return { value: escaped ? out : value, escaped };
}
