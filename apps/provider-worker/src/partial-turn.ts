/**
 * What a debate turn's reply (a DebateTurn JSON object: speaker, round, message, …) says so
 * far, read from a prefix of its text as it streams: the round once its number is complete,
 * and as much of the message as has arrived, decoded. The decoded message only grows as the
 * text does (a half-received escape is left for the next read), so what was published of it
 * is always a prefix of what is read next. Tolerant by design: a reply that is not such an
 * object yields nothing, and the whole reply, validated, is what gets stored.
 */
export interface PartialTurn {
  round: number | null;
  message: string;
}

const WS = /\s/;

export function readPartialTurn(text: string): PartialTurn {
  const out: PartialTurn = { round: null, message: '' };
  let i = text.indexOf('{');
  if (i < 0) return out;
  i++;
  for (;;) {
    while (i < text.length && (WS.test(text[i]) || text[i] === ',')) i++;
    if (text[i] !== '"') return out; // the end of the object, the end of the text so far, or not a turn
    const key = stringAt(text, i);
    if (!key.closed) return out;
    i = key.end;
    while (i < text.length && WS.test(text[i])) i++;
    if (text[i] !== ':') return out;
    i++;
    while (i < text.length && WS.test(text[i])) i++;
    if (i >= text.length) return out;
    if (key.value === 'message' && text[i] === '"') {
      const message = stringAt(text, i);
      out.message = message.value;
      if (!message.closed) return out;
      i = message.end;
      continue;
    }
    const end = valueEnd(text, i);
    if (end === null) return out; // the value is still arriving
    if (key.value === 'round') {
      const n = Number(text.slice(i, end).trim());
      out.round = Number.isInteger(n) ? n : null;
    }
    i = end;
  }
}

/** The JSON string starting at the quote at `at`: decoded as far as it has arrived. */
function stringAt(text: string, at: number): { value: string; closed: boolean; end: number } {
  let i = at + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  const closed = i < text.length;
  let raw = text.slice(at + 1, Math.min(i, text.length));
  if (!closed) raw = withoutPartialEscape(raw);
  let value: string;
  try {
    value = JSON.parse(`"${raw}"`) as string;
  } catch {
    value = ''; // a raw control character or a bad escape: not JSON, nothing to show
  }
  return { value, closed, end: i + 1 };
}

/** A string cut mid-escape (`\`, `\u00`) loses the escape's start, so it decodes. */
function withoutPartialEscape(raw: string): string {
  const unicode = /\\u[0-9a-fA-F]{0,3}$/.exec(raw);
  if (unicode && backslashesBefore(raw, unicode.index) % 2 === 0) return raw.slice(0, unicode.index);
  if (raw.endsWith('\\') && backslashesBefore(raw, raw.length - 1) % 2 === 0) return raw.slice(0, -1);
  return raw;
}

const backslashesBefore = (raw: string, at: number): number => {
  let n = 0;
  while (at - 1 - n >= 0 && raw[at - 1 - n] === '\\') n++;
  return n;
};

/** Where a value (a string, number, literal, object or array) that starts at `at` ends; null if it has not all arrived. */
function valueEnd(text: string, at: number): number | null {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const s = stringAt(text, i);
      if (!s.closed) return null;
      i = s.end - 1;
      if (depth === 0) return s.end;
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (depth === 0) return i; // the enclosing object's end: a scalar ended here
      depth--;
      if (depth === 0) return i + 1;
    } else if (c === ',' && depth === 0) return i;
  }
  return null;
}
