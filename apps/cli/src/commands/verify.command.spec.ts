import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { callRecordHash, chainHashes, exportHash, parseSigningKey, RUN_EXPORT_FORMAT, sha256Hex, type RecordedCall, type RunExport } from '@roundtable/contracts';
import { runCli } from '../cli';
import { captureIo, sendJson, startFakeApi, type FakeApi } from '../fake-api.fixture';

const RUN = 'run_rec';
const key = generateKeyPairSync('ed25519');
const signer = parseSigningKey(key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
const otherPub = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();

/** A signed export of a three-event run with one call, as GET /v1/runs/:id/export serves it. */
function exportFile(): RunExport {
  const call: RecordedCall = {
    id: 'c1', role: 'vc', stage: 'ROAST', label: 'J1', provider: 'replay', model: 'm', status: 'completed',
    messages: [{ role: 'user', content: 'score it' }], response_text: '{"score":7}', parsed: { score: 7 }, valid: true,
    error: null, error_code: null, input_tokens: 10, output_tokens: 3, cost_usd: '0.000100',
  };
  const bare = [
    { run_id: RUN, sequence: 1, type: 'run_created', payload: { project: 'p', workflow: 'panel' }, created_at: '2026-12-05T10:00:00.000Z' },
    { run_id: RUN, sequence: 2, type: 'agent_call_completed', payload: { call_id: 'c1', record_hash: callRecordHash(call) }, created_at: '2026-12-05T10:00:01.000Z' },
    { run_id: RUN, sequence: 3, type: 'run_completed', payload: { status: 'done' }, created_at: '2026-12-05T10:00:02.000Z' },
  ];
  const hashes = chainHashes(null, bare);
  const report = '# p — panel run\n\nGO\n';
  const file = {
    format: RUN_EXPORT_FORMAT as typeof RUN_EXPORT_FORMAT,
    exported_at: '2026-12-05T10:00:03.000Z',
    run: { id: RUN, status: 'done' },
    run_id: RUN,
    head_hash: hashes[2],
    event_seq: 3,
    signature: signer.sign(RUN, 3, hashes[2]),
    events: bare.map((e, i) => ({ ...e, hash: hashes[i] })),
    calls: [call],
    artifacts: [{ name: 'report.md', media_type: 'text/markdown', sha256: sha256Hex(report), content: report }],
  };
  return { ...file, export_sha256: exportHash(file) };
}

describe('roundtable verify / export', () => {
  let dir: string;
  let api: FakeApi | undefined;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'rt-verify-'))));
  afterEach(async () => {
    await api?.close();
    api = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  const write = (name: string, text: string) => writeFileSync(path.join(dir, name), text);
  const verify = async (...args: string[]) => {
    const io = captureIo({ cwd: dir });
    const code = await runCli(['verify', ...args], io.io);
    return { code, out: io.stdout(), err: io.stderr() };
  };

  it('verify --file: intact offline, with the head hash; with the operator key; exit 4 after one changed byte', async () => {
    const file = exportFile();
    const text = JSON.stringify(file, null, 2);
    write('run.json', text);
    write('audit.pub', signer.publicKeyPem);
    write('other.pub', otherPub);

    const ok = await verify('--file', 'run.json');
    expect(ok.code).toBe(0);
    expect(ok.out).toContain('intact\n');
    expect(ok.out).toContain(`head ${file.head_hash}`);
    expect(ok.out).toContain('signature valid at event 3');
    expect((await verify('--file', 'run.json', '--public-key', 'audit.pub')).out).toContain('the key you gave');
    expect(await verify('--file', 'run.json', '--public-key', 'other.pub')).toMatchObject({ code: 4 });

    // One byte of a call's reply, of an event's payload, of the report: each fails.
    for (const [from, to] of [
      ['"score": 7', '"score": 8'],
      ['"status": "done"', '"status": "dona"'],
      ['GO\\n', 'GP\\n'],
      ['2026-12-05T10:00:03', '2026-12-05T10:00:04'],
    ]) {
      expect(text.includes(from)).toBe(true);
      write('edited.json', text.replace(from, to));
      const bad = await verify('--file', 'edited.json');
      expect([from, bad.code, bad.out]).toEqual([from, 4, expect.stringContaining('NOT INTACT: changed')]);
    }
    // Every single byte: changed to another character, the file fails (not an export, or not intact), unless it is only layout.
    let passed = 0;
    for (let i = 0; i < text.length; i += 7) {
      const c = text[i];
      const edited = text.slice(0, i) + (c === 'a' ? 'b' : c === ' ' || c === '\n' ? c : 'a') + text.slice(i + 1);
      if (edited === text) continue;
      write('byte.json', edited);
      const r = await verify('--file', 'byte.json');
      if (r.code === 0) passed++;
    }
    expect(passed).toBe(0);
  });

  it('verify --json prints the verdict; a file that is not an export is an error (exit 1)', async () => {
    write('run.json', JSON.stringify(exportFile()));
    const io = captureIo({ cwd: dir });
    expect(await runCli(['verify', '--file', 'run.json', '--json'], io.io)).toBe(0);
    expect(JSON.parse(io.stdout())).toMatchObject({ intact: true, events: 3, calls: 1 });
    write('junk.json', '{"format":"x"}');
    expect(await verify('--file', 'junk.json')).toMatchObject({ code: 1 });
    expect(await verify()).toMatchObject({ code: 1 });
  });

  it('verify <run> asks the api; export <run> -o writes the file the api served', async () => {
    const file = exportFile();
    api = await startFakeApi((req, res) => {
      if (req.url === `/v1/runs/${RUN}/verify`) return sendJson(res, 200, { intact: false, kind: 'missing', at: { sequence: 2 }, detail: 'event 2 is missing' });
      if (req.url === `/v1/runs/${RUN}/export`) return sendJson(res, 200, file);
      sendJson(res, 404, { error: 'run_not_found', message: 'no run' });
    });
    const bad = await verify(RUN, '--api', api.url);
    expect(bad).toMatchObject({ code: 4 });
    expect(bad.out).toBe('NOT INTACT: missing at event 2\nevent 2 is missing\n');

    const io = captureIo({ cwd: dir });
    expect(await runCli(['export', RUN, '-o', 'out.json', '--api', api.url], io.io)).toBe(0);
    expect(JSON.parse(readFileSync(path.join(dir, 'out.json'), 'utf8'))).toEqual(file);
    expect((await verify('--file', 'out.json')).code).toBe(0);
    write('audit.pub', signer.publicKeyPem);
    expect((await verify(RUN, '--public-key', 'audit.pub', '--api', api.url)).out).toContain('the key you gave');
  });
});
