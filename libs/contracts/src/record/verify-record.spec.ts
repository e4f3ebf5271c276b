import { generateKeyPairSync } from 'node:crypto';
import { canonicalJson } from '../experiment/canonical-json';
import { callRecordHash, chainHashes, eventHash } from './record-hash';
import { parsePublicKey, parseSigningKey, samePublicKey } from './record-signature';
import type { RecordedCall, RecordedEvent, RunRecord } from './run-record.schema';
import { verifyArtifacts, verifyRecord } from './verify-record';

const RUN = 'run_1';
const at = '2026-12-05T10:00:00.000Z';

function call(id: string, over: Partial<RecordedCall> = {}): RecordedCall {
  return {
    id,
    role: 'proposer',
    stage: 'PROPOSE',
    label: 'P1',
    provider: 'replay',
    model: 'm',
    status: 'completed',
    messages: [{ role: 'user', content: 'hi' }],
    response_text: '{"a":1}',
    parsed: { a: 1, b: { y: 2, x: 1 } },
    valid: true,
    error: null,
    error_code: null,
    input_tokens: 10,
    output_tokens: 5,
    cost_usd: '0.001200',
    ...over,
  };
}

/** A chained record of n events, the 3rd recording call c1. */
function record(n = 5): RunRecord {
  const c1 = call('c1');
  const bare = Array.from({ length: n }, (_, i) => ({
    run_id: RUN,
    sequence: i + 1,
    type: i === 2 ? 'agent_call_completed' : 'stage_changed',
    payload: i === 2 ? { call_id: 'c1', record_hash: callRecordHash(c1) } : { from: 'A', to: 'B', reason: `r${i}` },
    created_at: at,
  }));
  const hashes = chainHashes(null, bare);
  const events: RecordedEvent[] = bare.map((e, i) => ({ ...e, hash: hashes[i] }));
  return { run_id: RUN, head_hash: hashes[n - 1], event_seq: n, signature: null, events, calls: [c1] };
}

/** Recomputes every hash after an edit, as an attacker with write access would. */
function recompute(r: RunRecord): RunRecord {
  for (const e of r.events) if (e.payload.call_id) e.payload.record_hash = callRecordHash(r.calls.find((c) => c.id === e.payload.call_id)!);
  const hashes = chainHashes(null, r.events);
  r.events.forEach((e, i) => (e.hash = hashes[i]));
  r.head_hash = hashes[hashes.length - 1];
  return r;
}

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops whitespace, as jsonb keeps no order', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson({ b: 1, a: 2 })).toBe(canonicalJson({ a: 2, b: 1 }));
  });
  it('follows JSON.stringify otherwise', () => {
    expect(canonicalJson({ a: undefined, b: [undefined], c: NaN, d: new Date(at) })).toBe(`{"b":[null],"c":null,"d":"${at}"}`);
    expect(canonicalJson('é"\n')).toBe(JSON.stringify('é"\n'));
  });
});

describe('eventHash', () => {
  it('chains: a different prev or a payload in another key order', () => {
    const e = { run_id: RUN, sequence: 1, type: 't', payload: { a: 1, b: 2 }, created_at: at };
    expect(eventHash(null, e)).toMatch(/^[0-9a-f]{64}$/);
    expect(eventHash('x', e)).not.toBe(eventHash(null, e));
    expect(eventHash(null, { ...e, payload: { b: 2, a: 1 } })).toBe(eventHash(null, e));
  });
});

describe('verifyRecord', () => {
  it('an untouched record is intact, its head the last hash', () => {
    const r = record();
    expect(verifyRecord(r)).toEqual({ intact: true, events: 5, unchained: 0, calls: 1, unrecorded_calls: 0, head: r.head_hash, signature: { status: 'absent', key: null, sequence: null } });
  });

  it('an edited reply, usage or cost: that call changed', () => {
    for (const edit of [{ response_text: 'x' }, { parsed: { a: 2 } }, { output_tokens: 6 }, { cost_usd: '0.001300' }, { messages: [] }]) {
      const r = record();
      Object.assign(r.calls[0], edit);
      expect(verifyRecord(r)).toMatchObject({ intact: false, kind: 'changed', at: { call_id: 'c1', sequence: 3 } });
    }
  });

  it('an edited payload: that event changed', () => {
    const r = record();
    r.events[1].payload.reason = 'other';
    expect(verifyRecord(r)).toMatchObject({ intact: false, kind: 'changed', at: { sequence: 2 } });
  });

  it('a deleted event: missing, in the middle (a gap) or at the end (the head)', () => {
    const middle = record();
    middle.events.splice(1, 1);
    expect(verifyRecord(middle)).toMatchObject({ intact: false, kind: 'missing', at: { sequence: 2 } });
    const end = record();
    end.events.pop();
    expect(verifyRecord(end)).toMatchObject({ intact: false, kind: 'missing', at: { sequence: 5 } });
    const endNoSeq = record();
    endNoSeq.events.pop();
    delete endNoSeq.event_seq;
    expect(verifyRecord(endNoSeq)).toMatchObject({ intact: false, kind: 'missing', at: { sequence: 5 } });
  });

  it('two events swapped: reordered, neighbours or not', () => {
    for (const [a, b] of [
      [1, 2],
      [0, 3],
      [3, 4],
    ]) {
      const r = record();
      const sa = r.events[a].sequence;
      r.events[a].sequence = r.events[b].sequence;
      r.events[b].sequence = sa;
      expect(verifyRecord(r)).toMatchObject({ intact: false, kind: 'reordered', at: { sequence: a + 1 } });
    }
  });

  it('a deleted call its event records: missing', () => {
    const r = record();
    r.calls = [];
    expect(verifyRecord(r)).toMatchObject({ intact: false, kind: 'missing', at: { call_id: 'c1' } });
  });

  it('events from before the chain are unchained, not tampering; a hash-less event after a chained one is', () => {
    const r = record();
    r.events[0].hash = null;
    r.events[1].hash = null;
    const tail = chainHashes(null, r.events.slice(2));
    r.events.slice(2).forEach((e, i) => (e.hash = tail[i]));
    r.head_hash = tail[tail.length - 1];
    expect(verifyRecord(r)).toMatchObject({ intact: true, unchained: 2, events: 5 });
    r.events[3].hash = null;
    expect(verifyRecord(r)).toMatchObject({ intact: false, kind: 'changed', at: { sequence: 4 } });
  });

  it('a call no event records yet (in flight) is counted as unrecorded, not checked: it is not in the record yet', () => {
    const r = record();
    r.calls.push(call('c2'));
    expect(verifyRecord(r)).toMatchObject({ intact: true, calls: 1, unrecorded_calls: 1 });
  });

  describe('signed', () => {
    const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const signer = parseSigningKey(pem);
    const other = parseSigningKey(generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    const signed = () => {
      const r = record();
      r.signature = signer.sign(RUN, 5, r.head_hash!);
      return r;
    };

    it('verifies with the embedded key and with the trusted one', () => {
      expect(verifyRecord(signed())).toMatchObject({ intact: true, signature: { status: 'valid', key: 'embedded', sequence: 5 } });
      expect(verifyRecord(signed(), { publicKey: signer.publicKeyPem })).toMatchObject({ intact: true, signature: { status: 'valid', key: 'trusted' } });
    });

    it('an edit with the whole chain recomputed still fails the signature', () => {
      const r = signed();
      r.calls[0].response_text = 'rewritten';
      recompute(r);
      expect(verifyRecord(r)).toMatchObject({ intact: false, kind: 'signature', at: { sequence: 5 } });
    });

    it('re-signed with another key fails against the trusted key; a stripped signature fails when a key is trusted', () => {
      const r = signed();
      r.calls[0].cost_usd = '0';
      recompute(r);
      r.signature = other.sign(RUN, 5, r.head_hash!);
      expect(verifyRecord(r)).toMatchObject({ intact: true });
      expect(verifyRecord(r, { publicKey: signer.publicKeyPem })).toMatchObject({ intact: false, kind: 'signature' });
      const stripped = signed();
      stripped.signature = null;
      expect(verifyRecord(stripped, { publicKey: signer.publicKeyPem })).toMatchObject({ intact: false, kind: 'signature' });
    });

    it("the api's way (requireSignature false): an unsigned run is intact with the signature absent, another key's still fails", () => {
      const api = { publicKey: signer.publicKeyPem, requireSignature: false };
      const unsigned = record();
      expect(verifyRecord(unsigned, api)).toMatchObject({ intact: true, signature: { status: 'absent', key: null } });
      const r = signed();
      r.signature = other.sign(RUN, 5, r.head_hash!);
      expect(verifyRecord(r, api)).toMatchObject({ intact: false, kind: 'signature' });
      expect(verifyRecord(signed(), api)).toMatchObject({ intact: true, signature: { status: 'valid', key: 'trusted' } });
    });

    it('parsePublicKey takes the SPKI PEM (or its \\n form) and names the fix for anything else', () => {
      expect(samePublicKey(parsePublicKey(signer.publicKeyPem.replace(/\n/g, '\\n')), signer.publicKeyPem)).toBe(true);
      expect(() => parsePublicKey('nope')).toThrow(/AUDIT_PUBLIC_KEY is not a PEM public key.*openssl pkey -in audit.pem -pubout/);
    });

    it('a forged signature or one moved to another run fails', () => {
      const r = signed();
      r.signature!.signature = Buffer.from('x'.repeat(64)).toString('base64');
      expect(verifyRecord(r)).toMatchObject({ intact: false, kind: 'signature' });
      const moved = signed();
      const again = record();
      again.run_id = 'run_2';
      again.events.forEach((e) => (e.run_id = 'run_2'));
      recompute(again);
      again.signature = { ...moved.signature!, hash: again.head_hash! };
      expect(verifyRecord(again)).toMatchObject({ intact: false, kind: 'signature' });
    });
  });

  it('parseSigningKey names the fix for a key that is not Ed25519 PEM', () => {
    expect(() => parseSigningKey('nope')).toThrow(/openssl genpkey -algorithm ed25519/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(() => parseSigningKey(rsa)).toThrow(/is a rsa key/);
    const oneLine = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString().replace(/\n/g, '\\n');
    expect(parseSigningKey(oneLine).publicKeyPem).toMatch(/BEGIN PUBLIC KEY/);
  });

  it('verifyArtifacts: content that does not hash to its sha256', () => {
    const a = { name: 'report.md', media_type: 'text/markdown', content: 'hello', sha256: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824' };
    expect(verifyArtifacts([a])).toBeNull();
    expect(verifyArtifacts([{ ...a, content: 'hellp' }])).toMatchObject({ kind: 'changed', at: { artifact: 'report.md' } });
  });
});
