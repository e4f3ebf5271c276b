/** The pieces every route of the OpenAPI document is described with: references, replies, errors, path parameters. */

export const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
export const json = (description: string, id: string) => ({ description, content: { 'application/json': { schema: ref(id) } } });
export const error = (description: string) => json(description, 'ApiError');

export const location = { Location: { schema: { type: 'string' }, description: "the run's URL" } };

export const runId = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, example: 'run_0123456789' };
export const callId = { name: 'callId', in: 'path', required: true, schema: { type: 'string' } };
export const ideaId = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, example: 'idea_0123456789' };
export const versionN = { name: 'n', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };

/** Every route behind the token answers these too. */
export const AUTH_ERRORS = {
  '401': { ...error('No bearer token, or one API_TOKENS does not hold.'), headers: { 'WWW-Authenticate': { schema: { type: 'string' }, description: 'Bearer realm="roundtable"' } } },
};
export const WRITE_ERRORS = {
  ...AUTH_ERRORS,
  '403': error('The token is read-only; this route needs a write token.'),
  '429': {
    ...error('More writes a minute than RATE_LIMIT_WRITES_PER_MIN allows for this token (or client address).'),
    headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'seconds until the next write is accepted' } },
  },
};

export const location201 = (what: string) => ({ Location: { schema: { type: 'string' }, description: `the new ${what}'s URL` } });

