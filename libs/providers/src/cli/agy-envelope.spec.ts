import { agyEnvelope, agyUsage, escapeControlCharsInStrings } from './agy-envelope';

/** agy 1.1.8's envelope as google-antigravity/antigravity-cli#702 shows it: a raw newline inside `response`. */
const RAW_NEWLINE_ENVELOPE =
  '{"conversation_id":"c-1","status":"SUCCESS","response":"JSONTEST\n","duration_seconds":2.98,"num_turns":1,' +
  '"usage":{"input_tokens":22565,"output_tokens":6,"thinking_tokens":0,"cache_read_tokens":0,"total_tokens":22571}}\n';

describe('escapeControlCharsInStrings', () => {
  it('escapes raw control characters inside strings only, leaving escapes and whitespace between tokens alone', () => {
    expect(escapeControlCharsInStrings('{\n  "a": "x\ny\tz\r\u0001",\n  "b": "q\\"\n"\n}')).toBe('{\n  "a": "x\\ny\\tz\\r\\u0001",\n  "b": "q\\"\\n"\n}');
    expect(escapeControlCharsInStrings('{"a":"\\\\"}\n')).toBe('{"a":"\\\\"}\n');
  });
});

describe('agyEnvelope', () => {
  it('reads the envelope whose response holds a raw newline, which JSON.parse refuses as printed', () => {
    expect(() => JSON.parse(RAW_NEWLINE_ENVELOPE)).toThrow();
    expect(agyEnvelope(RAW_NEWLINE_ENVELOPE)).toMatchObject({ status: 'SUCCESS', response: 'JSONTEST\n', conversation_id: 'c-1' });
  });

  it('takes the envelope after banner lines, and never a line of the reply that is an object by itself', () => {
    const stdout = 'Checking for updates...\n{"status":"SUCCESS","response":"a\n{}\nb"}\n';
    expect(agyEnvelope(stdout)).toEqual({ status: 'SUCCESS', response: 'a\n{}\nb' });
  });

  it('falls back to the last JSON line when text follows the envelope, and is null without one', () => {
    expect(agyEnvelope('{"status":"ERROR","error":"x"}\ntrailing words')).toEqual({ status: 'ERROR', error: 'x' });
    expect(agyEnvelope('Error: something went wrong\n{"partial": ')).toBeNull();
    expect(agyEnvelope('')).toBeNull();
  });
});

describe('agyUsage', () => {
  it('keeps cache reads inside input_tokens when the total says they are there (Gemini-style)', () => {
    expect(agyUsage({ input_tokens: 1000, output_tokens: 50, thinking_tokens: 20, cache_read_tokens: 400, total_tokens: 1070 })).toEqual({
      inputTokens: 1000,
      outputTokens: 70,
      cachedInputTokens: 400,
    });
  });

  it('adds cache reads to input when the total counts them apart (Anthropic-style)', () => {
    expect(agyUsage({ input_tokens: 600, output_tokens: 50, thinking_tokens: 0, cache_read_tokens: 400, total_tokens: 1050 })).toEqual({
      inputTokens: 1000,
      outputTokens: 50,
      cachedInputTokens: 400,
    });
  });

  it('is zero for an envelope without usage', () => {
    expect(agyUsage(null)).toEqual({ inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 });
  });
});
