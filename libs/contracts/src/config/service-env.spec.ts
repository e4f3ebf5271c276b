import { z } from 'zod';
import { CommonEnv, parseServiceEnv, ServiceEnvError, WorkerEnv } from './service-env';

const good = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/roundtable', REDIS_URL: 'redis://127.0.0.1:6379' };

function failure(env: NodeJS.ProcessEnv, schema: z.ZodType = CommonEnv): ServiceEnvError {
  try {
    parseServiceEnv('orchestrator', schema, env);
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceEnvError);
    return e as ServiceEnvError;
  }
  throw new Error('expected the environment to be refused');
}

describe('parseServiceEnv with CommonEnv', () => {
  it('parses a good environment and defaults QUEUE_PREFIX to roundtable and LOG_FORMAT to json', () => {
    expect(parseServiceEnv('api', CommonEnv, { ...good })).toEqual({ ...good, QUEUE_PREFIX: 'roundtable', LOG_FORMAT: 'json' });
  });

  it('refuses a LOG_FORMAT it does not write', () => {
    expect(parseServiceEnv('api', CommonEnv, { ...good, LOG_FORMAT: 'text' }).LOG_FORMAT).toBe('text');
    expect(failure({ ...good, LOG_FORMAT: 'xml' }).message).toContain('LOG_FORMAT must be json or text');
  });

  it('ignores unrelated variables', () => {
    expect(parseServiceEnv('api', CommonEnv, { ...good, PATH: '/bin' })).not.toHaveProperty('PATH');
  });

  it('names DATABASE_URL when it is missing and gives an example', () => {
    const e = failure({ REDIS_URL: good.REDIS_URL });
    expect(e.code).toBe('INVALID_ENVIRONMENT');
    expect(e.message).toMatch(/^orchestrator: bad environment\n/);
    expect(e.message).toContain('  - DATABASE_URL: DATABASE_URL is not set');
    expect(e.message).toContain('e.g. postgres://postgres@127.0.0.1:5432/roundtable');
    expect(e.message).not.toContain('REDIS_URL');
  });

  it.each(['not a url', 'localhost', ''])('refuses DATABASE_URL=%j, showing the shape of a URL', (url) => {
    const e = failure({ ...good, DATABASE_URL: url });
    expect(e.message).toContain('DATABASE_URL must be a URL like postgres://user@host:5432/db');
  });

  it('names every bad variable at once', () => {
    const e = failure({ QUEUE_PREFIX: 'a:b' });
    const lines = e.message.split('\n').slice(1);
    expect(lines).toHaveLength(3);
    expect(lines.map((l) => l.split(':')[0])).toEqual(['  - DATABASE_URL', '  - REDIS_URL', '  - QUEUE_PREFIX']);
    expect(e.message).toContain('REDIS_URL is not set: give the Redis URL, e.g. redis://127.0.0.1:6379');
  });

  it.each(['a:b', 'a b', 'rt/1', ''])('refuses QUEUE_PREFIX=%j (it becomes part of Redis keys)', (prefix) => {
    expect(failure({ ...good, QUEUE_PREFIX: prefix }).message).toContain('QUEUE_PREFIX may hold letters, digits, _ and - only');
  });

  it.each(['rt_test-1', 'ROUNDTABLE'])('keeps QUEUE_PREFIX=%j', (prefix) => {
    expect(parseServiceEnv('api', CommonEnv, { ...good, QUEUE_PREFIX: prefix }).QUEUE_PREFIX).toBe(prefix);
  });

  it('works with a service schema that extends CommonEnv', () => {
    const ApiEnv = CommonEnv.extend({ PORT: z.coerce.number().int().default(3000) });
    expect(parseServiceEnv('api', ApiEnv, { ...good, PORT: '8080' }).PORT).toBe(8080);
    expect(failure({ ...good, PORT: 'http' }, ApiEnv).message).toContain('  - PORT: ');
  });
});

describe('WorkerEnv', () => {
  it('defaults HEALTH_PORT to 9464 and takes 0 for any free port', () => {
    expect(parseServiceEnv('orchestrator', WorkerEnv, { ...good }).HEALTH_PORT).toBe(9464);
    expect(parseServiceEnv('orchestrator', WorkerEnv, { ...good, HEALTH_PORT: '0' }).HEALTH_PORT).toBe(0);
  });

  it.each(['http', '70000', '-1', '1.5'])('refuses HEALTH_PORT=%j, naming it', (port) => {
    expect(failure({ ...good, HEALTH_PORT: port }, WorkerEnv).message).toMatch(/ {2}- HEALTH_PORT: HEALTH_PORT must be/);
  });
});
