import { HttpException } from '@nestjs/common';
import { findJsonSyntaxError, formatSyntaxError, type SyntaxErrorAt } from '@roundtable/contracts';

/** The body of every error reply: a stable snake_case code, a sentence for a human, and extra fields if any. */
export interface ApiErrorBody {
  error: string;
  message: string;
  [extra: string]: unknown;
}

/** An error a client can act on; the filter sends its body as is. */
export class ApiError extends HttpException {
  constructor(status: number, body: ApiErrorBody) {
    super(body, status);
  }

  static notFound(error: string, message: string): ApiError {
    return new ApiError(404, { error, message });
  }

  static badRequest(error: string, message: string, extra: Record<string, unknown> = {}): ApiError {
    return new ApiError(400, { error, message, ...extra });
  }
}

/**
 * A request body that body-parser could not decode; kept apart so the reply says which format was
 * broken, and where: `line L, column C: <what>`, read from the body itself (JSON.parse's own words
 * give a character position on some Node versions and none on others).
 */
export class MalformedBodyError extends Error {
  /** Where the body stops being JSON, when the body's text was at hand. */
  readonly at: SyntaxErrorAt | null;

  constructor(
    readonly format: string,
    cause: Error,
    body?: string,
  ) {
    const at = typeof body === 'string' && format === 'JSON' ? findJsonSyntaxError(body) : null;
    super(`malformed ${format} body: ${at ? formatSyntaxError(at) : cause.message}`);
    this.at = at;
  }
}
