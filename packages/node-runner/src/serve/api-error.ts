// Errors in the shape OpenAI's API returns them, so an OpenAI client raises its usual exception:
// `{"error": {"message", "type", "param", "code"}}` with the matching HTTP status (OpenAI's API
// reference, "Error codes": 400 invalid request, 401 authentication, 404 not found, 413 too large,
// 429 too many requests, 500 server error, 503 overloaded).

export type ApiErrorType = 'invalid_request_error' | 'authentication_error' | 'not_found_error' | 'rate_limit_error' | 'server_error';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: ApiErrorType = 'invalid_request_error',
    readonly param: string | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
  }

  body(): { error: { message: string; type: ApiErrorType; param: string | null; code: string | null } } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** A request field that is wrong: 400, naming the field. */
export const invalid = (param: string, message: string, code: string | null = null) => new ApiError(400, message, 'invalid_request_error', param, code);
