import { ArgumentsHost, BadRequestException, Logger, NotFoundException } from '@nestjs/common';
import { ApiError, MalformedBodyError } from './api-error';
import { ApiExceptionFilter } from './api-exception.filter';

function reply(exception: unknown): { status: number; body: Record<string, unknown>; type: string | undefined } {
  const out: { status: number; body: Record<string, unknown>; type: string | undefined } = { status: 0, body: {}, type: undefined };
  const res = {
    headersSent: false,
    status(s: number) {
      out.status = s;
      return this;
    },
    setHeader(_k: string, v: string) {
      out.type = v;
      return this;
    },
    json(b: Record<string, unknown>) {
      out.body = b;
    },
  };
  const host = { switchToHttp: () => ({ getResponse: () => res }) } as unknown as ArgumentsHost;
  new ApiExceptionFilter().catch(exception, host);
  return out;
}

describe('ApiExceptionFilter', () => {
  beforeEach(() => jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  it('answers an unexpected error with a generic 500 and keeps the stack and message server-side', () => {
    const err = new Error('relation "secret_table" does not exist');
    const r = reply(err);
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ error: 'internal_error', message: 'internal error; the api log has the details' });
    expect(JSON.stringify(r.body)).not.toContain('secret_table');
    expect(Logger.prototype.error).toHaveBeenCalledWith(expect.stringContaining('secret_table'));
    expect(r.type).toBe('application/json; charset=utf-8');
  });

  it('passes an ApiError body through untouched', () => {
    const r = reply(ApiError.badRequest('invalid_project_config', 'bad', { issues: [{ path: 'a', message: 'b' }] }));
    expect(r).toMatchObject({ status: 400, body: { error: 'invalid_project_config', message: 'bad', issues: [{ path: 'a', message: 'b' }] } });
  });

  it("turns Nest's own exceptions into { error, message } with a snake_case code", () => {
    expect(reply(new NotFoundException('Cannot GET /x')).body).toEqual({ error: 'not_found', message: 'Cannot GET /x' });
    expect(reply(new BadRequestException(['a is bad', 'b is bad'])).body).toEqual({ error: 'bad_request', message: 'a is bad; b is bad' });
  });

  it('says which body format was malformed', () => {
    const r = reply(new MalformedBodyError('JSON', new SyntaxError('Unexpected end of JSON input')));
    expect(r).toMatchObject({ status: 400, body: { error: 'malformed_body', message: 'malformed JSON body: Unexpected end of JSON input' } });
  });

  it('gives a malformed JSON body its line and column, not a character position (issue 22)', () => {
    const body = '{\n  "project": "dd-demo",\n  "objective": "o",\n  "requirements": ["r"]\n  "providers": {}\n}';
    const r = reply(new MalformedBodyError('JSON', new SyntaxError("Expected ',' or '}' after property value in JSON at position 69"), body));
    expect(r).toMatchObject({
      status: 400,
      body: { error: 'malformed_body', message: 'malformed JSON body: line 5, column 3: expected "," or "}", found "\\""', line: 5, column: 3 },
    });
    const open = '{\n  "project": "dd-demo",\n  "budget": { "max_calls": 3 \n';
    expect(reply(new MalformedBodyError('JSON', new SyntaxError('Unexpected end of JSON input'), open)).body).toMatchObject({
      message: 'malformed JSON body: line 3, column 13: this "{" is never closed: a "}" is missing before the end of the text',
    });
  });

  it("keeps body-parser's client errors (413, 415) with their status and type", () => {
    const tooLarge = Object.assign(new Error('request entity too large'), { status: 413, expose: true, type: 'entity.too.large' });
    expect(reply(tooLarge)).toMatchObject({ status: 413, body: { error: 'entity_too_large', message: 'request entity too large' } });
  });

  it('does not trust a status on an error that is not marked safe to expose', () => {
    const r = reply(Object.assign(new Error('db down at 10.0.0.3'), { status: 400 }));
    expect(r.status).toBe(500);
  });
});
