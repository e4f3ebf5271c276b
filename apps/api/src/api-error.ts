import { HttpException } from '@nestjs/common';

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

/** A request body that body-parser could not decode; kept apart so the reply says which format was broken. */
export class MalformedBodyError extends Error {
  constructor(
    readonly format: string,
    cause: Error,
  ) {
    super(`malformed ${format} body: ${cause.message}`);
  }
}
