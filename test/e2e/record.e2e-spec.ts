import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { callRecordHash, chainHashes, type RecordedCall, type RecordVerdict } from '@roundtable/contracts';
import { getJson, Pipeline, projectConfigFrom, startPipeline, submitRun, waitForTerminal } from '@roundtable/testing';

jest.setTimeout(120_000);

const REPO = path.resolve(__dirname, '../..');
const CLI = path.join(REPO, 'dist/apps/cli/main.js');
const PANEL_DEMO = path.join(REPO, 'examples/panel-demo/project.yaml');

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: REPO, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: unknown }).code ?? -1) : 0, stdout, stderr });
    });
  });
}

/**
 * The tamper-evident record (issue 26) on a real run: the panel demo through the services as
 * separate processes, the orchestrator signing with an operator key. Then the rows are edited in
 * Postgres as an attacker with database access would, and /verify must name what was done; each
 * edit is undone before the next, and the undone run verifies intact again.
 */
describe('the run record: hash chain, verify, signature and export', () => {
  let pipeline: Pipeline;
  let runId: string;
  let dir: string;
  const keys = generateKeyPairSync('ed25519');
  const privatePem = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const publicPem = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();

  const verify = async () => (await getJson<RecordVerdict>(pipeline.api, `/v1/runs/${runId}/verify`)).body;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'rt-record-'));
    // The orchestrator signs with the private key; the api checks every signature with the public one.
    pipeline = await startPipeline({ env: { AUDIT_SIGNING_KEY: privatePem, AUDIT_PUBLIC_KEY: publicPem } });
    const res = await submitRun(pipeline.api, projectConfigFrom(PANEL_DEMO));
    expect(res.status).toBe(202);
    runId = res.body.id as string;
    expect(await waitForTerminal(pipeline, runId, 90_000)).toMatchObject({ status: 'done' });
  });

  afterAll(async () => {
    await pipeline?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A finished call with a reply and a cost, and the event that records it. */
  async function aRecordedCall(): Promise<{ id: string; sequence: number }> {
    const [row] = await pipeline.sql<{ id: string; sequence: number }>(
      `SELECT c.id, e.sequence FROM agent_calls c JOIN run_events e ON e.run_id = c.run_id AND e.payload->>'call_id' = c.id AND e.type = 'agent_call_completed'
        WHERE c.run_id = $1 AND c.status = 'completed' AND c.cost_usd IS NOT NULL ORDER BY c.seq LIMIT 1`,
      [runId],
    );
    return row;
  }

  it('an untouched run verifies intact, signed at its terminal event; every recorded call is hashed into its event; the report shows the head', async () => {
    const v = await verify();
    const [run] = await pipeline.sql<{ head_hash: string; event_seq: number; signature: { sequence: number; hash: string } }>(`SELECT head_hash, event_seq, signature FROM runs WHERE id = $1`, [runId]);
    expect(v).toMatchObject({ intact: true, head: run.head_hash, events: run.event_seq, unchained: 0, unrecorded_calls: 0, signature: { status: 'valid', key: 'trusted' } });
    expect(run.signature).toMatchObject({ sequence: run.event_seq, hash: run.head_hash });
    const calls = await pipeline.sql<RecordedCall & { event_hash: string | null }>(
      `SELECT c.id, c.role, c.stage, c.label, c.provider, c.model, c.status, c.messages, c.response_text, c.parsed, c.valid, c.error, c.error_code,
              c.input_tokens, c.output_tokens, c.cost_usd::text AS cost_usd, e.payload->>'record_hash' AS event_hash FROM agent_calls c
         LEFT JOIN run_events e ON e.run_id = c.run_id AND e.payload->>'call_id' = c.id AND e.type IN ('agent_call_completed', 'agent_call_failed')
        WHERE c.run_id = $1`,
      [runId],
    );
    expect(calls.length).toBeGreaterThan(5);
    // Each call's event carries the hash of what its row holds: messages, reply, usage, cost.
    for (const c of calls) expect([c.id, c.event_hash]).toEqual([c.id, callRecordHash(c)]);
    expect(v.intact && v.calls).toBe(calls.length);
    const report = await fetch(`${pipeline.api}/v1/runs/${runId}/report`).then((r) => r.text());
    expect(report).toContain(`Record head hash \`${run.head_hash}\``);
  });

  it('an edited reply, an edited cost, a deleted event, two reordered events, an edited payload: each named; undone, intact again', async () => {
    const call = await aRecordedCall();

    await pipeline.sql(`UPDATE agent_calls SET response_text = response_text || ' ' WHERE id = $1`, [call.id]);
    expect(await verify()).toMatchObject({ intact: false, kind: 'changed', at: { call_id: call.id, sequence: call.sequence } });
    await pipeline.sql(`UPDATE agent_calls SET response_text = left(response_text, -1) WHERE id = $1`, [call.id]);
    expect(await verify()).toMatchObject({ intact: true });

    await pipeline.sql(`UPDATE agent_calls SET parsed = jsonb_set(parsed, '{tampered}', 'true') WHERE id = $1`, [call.id]);
    expect(await verify()).toMatchObject({ intact: false, kind: 'changed', at: { call_id: call.id } });
    await pipeline.sql(`UPDATE agent_calls SET parsed = parsed - 'tampered' WHERE id = $1`, [call.id]);

    await pipeline.sql(`UPDATE agent_calls SET cost_usd = cost_usd + 1 WHERE id = $1`, [call.id]);
    expect(await verify()).toMatchObject({ intact: false, kind: 'changed', at: { call_id: call.id } });
    await pipeline.sql(`UPDATE agent_calls SET cost_usd = cost_usd - 1 WHERE id = $1`, [call.id]);
    expect(await verify()).toMatchObject({ intact: true });

    await pipeline.sql(`CREATE TABLE saved_event AS SELECT * FROM run_events WHERE run_id = $1 AND sequence = 5`.replace('$1', `'${runId}'`));
    await pipeline.sql(`DELETE FROM run_events WHERE run_id = $1 AND sequence = 5`, [runId]);
    expect(await verify()).toMatchObject({ intact: false, kind: 'missing', at: { sequence: 5 } });
    await pipeline.sql(`INSERT INTO run_events SELECT * FROM saved_event`);
    await pipeline.sql(`DROP TABLE saved_event`);
    expect(await verify()).toMatchObject({ intact: true });

    // The last event deleted: no gap, but the head hash (and event_seq) say one is gone.
    const [last] = await pipeline.sql<{ event_seq: number }>(`SELECT event_seq FROM runs WHERE id = $1`, [runId]);
    await pipeline.sql(`CREATE TABLE saved_event AS SELECT * FROM run_events WHERE run_id = '${runId}' AND sequence = ${Number(last.event_seq)}`);
    await pipeline.sql(`DELETE FROM run_events WHERE run_id = $1 AND sequence = $2`, [runId, last.event_seq]);
    expect(await verify()).toMatchObject({ intact: false, kind: 'missing', at: { sequence: Number(last.event_seq) } });
    await pipeline.sql(`INSERT INTO run_events SELECT * FROM saved_event`);
    await pipeline.sql(`DROP TABLE saved_event`);

    const swap = async (a: number, b: number) => {
      await pipeline.sql(`UPDATE run_events SET sequence = -1 WHERE run_id = $1 AND sequence = $2`, [runId, a]);
      await pipeline.sql(`UPDATE run_events SET sequence = $3 WHERE run_id = $1 AND sequence = $2`, [runId, b, a]);
      await pipeline.sql(`UPDATE run_events SET sequence = $2 WHERE run_id = $1 AND sequence = -1`, [runId, b]);
    };
    await swap(3, 4);
    expect(await verify()).toMatchObject({ intact: false, kind: 'reordered', at: { sequence: 3 } });
    await swap(3, 4);
    await swap(2, 6);
    expect(await verify()).toMatchObject({ intact: false, kind: 'reordered', at: { sequence: 2 } });
    await swap(2, 6);
    expect(await verify()).toMatchObject({ intact: true });

    await pipeline.sql(`UPDATE run_events SET payload = jsonb_set(payload, '{tampered}', 'true') WHERE run_id = $1 AND sequence = 2`, [runId]);
    expect(await verify()).toMatchObject({ intact: false, kind: 'changed', at: { sequence: 2 } });
    await pipeline.sql(`UPDATE run_events SET payload = payload - 'tampered' WHERE run_id = $1 AND sequence = 2`, [runId]);
    expect(await verify()).toMatchObject({ intact: true, signature: { status: 'valid' } });
  });

  it('an export verifies offline (roundtable verify --file, with the operator key) and fails after one byte changes', async () => {
    const file = path.join(dir, 'run.json');
    const exported = await cli(['export', runId, '-o', file, '--api', pipeline.api]);
    expect(exported).toMatchObject({ code: 0 });
    writeFileSync(path.join(dir, 'audit.pub'), publicPem);
    // No api: a URL nothing listens on.
    const offline = await cli(['verify', '--file', file, '--public-key', path.join(dir, 'audit.pub'), '--api', 'http://127.0.0.1:9']);
    expect(offline.code).toBe(0);
    expect(offline.stdout).toContain('intact');
    expect(offline.stdout).toContain('signature valid');

    const text = readFileSync(file, 'utf8');
    const i = text.indexOf('"response_text"') + '"response_text": "'.length + 2;
    const edited = text.slice(0, i) + (text[i] === 'x' ? 'y' : 'x') + text.slice(i + 1);
    writeFileSync(path.join(dir, 'edited.json'), edited);
    const bad = await cli(['verify', '--file', path.join(dir, 'edited.json')]);
    expect(bad.code).toBe(4);
    expect(bad.stdout).toContain('NOT INTACT: changed');

    const online = await cli(['verify', runId, '--api', pipeline.api]);
    expect(online.code).toBe(0);
    expect(online.stdout).toMatch(/^intact\nhead [0-9a-f]{64}\n/);
  });

  it('an edit with the whole chain recomputed (the call\'s hash in its event, event hashes, head) still fails the signature', async () => {
    const call = await aRecordedCall();
    await pipeline.sql(`UPDATE agent_calls SET response_text = 'rewritten', output_tokens = 1 WHERE id = $1`, [call.id]);
    const [row] = await pipeline.sql<RecordedCall>(
      `SELECT id, role, stage, label, provider, model, status, messages, response_text, parsed, valid, error, error_code, input_tokens, output_tokens,
              cost_usd::text AS cost_usd FROM agent_calls WHERE id = $1`,
      [call.id],
    );
    const recordHash = callRecordHash(row);
    await pipeline.sql(`UPDATE run_events SET payload = jsonb_set(payload, '{record_hash}', to_jsonb($3::text)) WHERE run_id = $1 AND sequence = $2`, [runId, call.sequence, recordHash]);
    const events = await pipeline.sql<{ run_id: string; sequence: number; type: string; payload: Record<string, unknown>; created_at: Date }>(
      `SELECT run_id, sequence, type, payload, created_at FROM run_events WHERE run_id = $1 ORDER BY sequence`,
      [runId],
    );
    const hashes = chainHashes(null, events.map((e) => ({ ...e, created_at: e.created_at.toISOString() })));
    for (const [i, e] of events.entries()) await pipeline.sql(`UPDATE run_events SET hash = $3 WHERE run_id = $1 AND sequence = $2`, [runId, e.sequence, hashes[i]]);
    await pipeline.sql(`UPDATE runs SET head_hash = $2 WHERE id = $1`, [runId, hashes.at(-1)]);

    expect(await verify()).toMatchObject({ intact: false, kind: 'signature' });
  });

  it('a missing run is a 404', async () => {
    expect((await getJson(pipeline.api, '/v1/runs/run_nope/verify')).status).toBe(404);
    expect((await getJson(pipeline.api, '/v1/runs/run_nope/export')).status).toBe(404);
  });
});
