import { JsonLogger } from './json-logger';
import { REDACTED, SecretRedactor } from './log-redaction';

function capture(opts: Partial<ConstructorParameters<typeof JsonLogger>[0]> = {}) {
  const lines: string[] = [];
  const logger = new JsonLogger({
    service: 'provider-worker',
    redactor: new SecretRedactor(['held-key-value-123']),
    write: (l) => lines.push(l),
    now: () => new Date('2026-01-02T03:04:05.000Z'),
    ...opts,
  });
  return { logger, lines, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('JsonLogger', () => {
  it('writes one JSON object per line with level, time, service, context and msg', () => {
    const { logger, lines, records } = capture();
    logger.log('consuming queue rt:agent.replay', 'provider-worker');
    logger.warn('slow');
    expect(lines.every((l) => l.endsWith('\n') && !l.slice(0, -1).includes('\n'))).toBe(true);
    expect(records()).toEqual([
      { level: 'info', time: '2026-01-02T03:04:05.000Z', service: 'provider-worker', context: 'provider-worker', msg: 'consuming queue rt:agent.replay' },
      { level: 'warn', time: '2026-01-02T03:04:05.000Z', service: 'provider-worker', context: null, msg: 'slow' },
    ]);
  });

  it('carries run_id and call_id given as fields or named in the text', () => {
    const { logger, records } = capture();
    logger.log({ msg: 'applied', run_id: 'run_x', stage: 'PROPOSE' }, 'orchestrator');
    logger.error('agent call run_0123456789-c7 failed: HTTP 500', 'provider-worker');
    logger.warn('run run_abcdef0123 halted');
    const [a, b, c] = records();
    expect(a).toMatchObject({ msg: 'applied', run_id: 'run_x', stage: 'PROPOSE', context: 'orchestrator' });
    expect(b).toMatchObject({ level: 'error', run_id: 'run_0123456789', call_id: 'run_0123456789-c7' });
    expect(c).toMatchObject({ run_id: 'run_abcdef0123' });
    expect(c).not.toHaveProperty('call_id');
  });

  it('keeps an error stack apart from the context', () => {
    const { logger, records } = capture();
    const err = new Error('boom');
    logger.error(err.message, err.stack, 'api');
    expect(records()[0]).toMatchObject({ level: 'error', msg: 'boom', context: 'api', stack: expect.stringContaining('at ') });
  });

  it('never writes a key: by the value this process holds or by its sk- shape', () => {
    const { logger, lines } = capture();
    logger.error('provider said: invalid x-api-key sk-ant-api03-ZZZZZZZZZZZZZZ (held-key-value-123)');
    expect(lines[0]).not.toContain('sk-ant-api03');
    expect(lines[0]).not.toContain('held-key-value-123');
    expect(JSON.parse(lines[0]).msg).toBe(`provider said: invalid x-api-key ${REDACTED} (${REDACTED})`);
  });

  it('censors the values under known secret keys, whatever they look like', () => {
    const { logger, records } = capture();
    logger.warn({ msg: 'provider options', apiKey: 'short', headers: { authorization: 'opaque', accept: 'json' }, model: 'm' });
    expect(records()[0]).toMatchObject({ apiKey: REDACTED, headers: { authorization: REDACTED, accept: 'json' }, model: 'm' });
  });

  it('cuts a long message and drops levels it was not asked for', () => {
    const { logger, records } = capture({ levels: ['log'] });
    logger.debug('hidden');
    logger.log('x'.repeat(5000));
    const all = records();
    expect(all).toHaveLength(1);
    expect(String(all[0].msg)).toMatch(/^x{4000}… \(1000 chars cut\)$/);
  });

  it('writes a readable line in text format, still redacted', () => {
    const { logger, lines } = capture({ format: 'text' });
    logger.log('call run_0123456789-c1 sent with sk-abcdefghijklmnop', 'worker');
    expect(lines[0]).toBe(`2026-01-02T03:04:05.000Z INFO  [provider-worker/worker] call run_0123456789-c1 sent with ${REDACTED}  (run_0123456789 run_0123456789-c1)\n`);
  });
});
