import { CST, Lexer } from 'yaml';

/**
 * How deep a request body nests, measured on its text before any parser builds it. JSON.parse
 * copes with 200,000 nested arrays, but everything after it recurses (the config loader's
 * variable walk, zod, JSON.stringify into Postgres) and overflows the stack into a 500; the yaml
 * package overflows inside its composer, and a long run of `- - - …` even exhausts its memory.
 * Both scans here are loops over the text (yaml's Lexer is a state machine, not a recursive
 * parser) and stop at the first level past the limit.
 */

/** Far more than any project config or request body needs (a config nests about 5 deep). */
export const MAX_BODY_DEPTH = 64;

export interface TooDeep {
  /** 1-based line of the first character past the limit. */
  line: number;
}

/** JSON: arrays and objects outside strings, counted byte by byte ([ { " \ are ASCII, never inside a UTF-8 sequence). */
export function jsonTooDeep(buf: Uint8Array, max = MAX_BODY_DEPTH): TooDeep | null {
  let depth = 0;
  let line = 1;
  let inString = false;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (c === 0x0a) line++;
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next byte is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return { line };
    } else if (c === 0x5d || c === 0x7d) {
      depth = Math.max(0, depth - 1);
    }
  }
  return null;
}

/**
 * YAML: an upper bound on the depth, from yaml's own tokens. A line's block depth is at most the
 * number of enclosing lines with smaller indentation plus the indicators on the line itself
 * (`- - x`, `? ? x`, `a: b`); flow collections add their brackets. Quoted and block scalars are
 * single tokens, so brackets inside text are not counted.
 */
export function yamlTooDeep(text: string, max = MAX_BODY_DEPTH): TooDeep | null {
  const indents: number[] = [];
  let line = 1;
  let atLineStart = true;
  let indent = 0;
  let onLine = 0;
  let flow = 0;
  let scalarSourceNext = false;
  for (const token of new Lexer().lex(text)) {
    if (scalarSourceNext) {
      // A scalar's own source, block scalars with their lines included.
      scalarSourceNext = false;
      line += token.split('\n').length - 1;
      continue;
    }
    if (token === CST.SCALAR) {
      scalarSourceNext = true;
      continue;
    }
    const type = CST.tokenType(token);
    if (type === 'newline') {
      line++;
      atLineStart = true;
      indent = 0;
      onLine = 0;
      continue;
    }
    if (type === 'space' || type === 'comment' || type === 'byte-order-mark' || type === 'doc-mode') {
      if (type === 'space' && atLineStart) indent = token.replace(/[^ ]/g, '').length;
      line += token.split('\n').length - 1;
      continue;
    }
    if (atLineStart) {
      atLineStart = false;
      while (indents.length && indents[indents.length - 1] >= indent) indents.pop();
      indents.push(indent);
    }
    if (type === 'flow-seq-start' || type === 'flow-map-start') flow++;
    else if (type === 'flow-seq-end' || type === 'flow-map-end') flow = Math.max(0, flow - 1);
    else if (flow === 0 && (type === 'seq-item-ind' || type === 'explicit-key-ind' || type === 'map-value-ind')) onLine++;
    if (indents.length + onLine + flow > max) return { line };
  }
  return null;
}
