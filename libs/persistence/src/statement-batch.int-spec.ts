import type { DataSource } from 'typeorm';
import { createDataSource } from './data-source';
import { preparedQuery } from './prepared-query';
import { StatementBatch } from './statement-batch';
import { createTestDatabase, type TestDatabase } from './test-database';

jest.setTimeout(30_000);

/**
 * A batch sends its parameters as quoted literals inside one simple-protocol message, not as
 * bound values: every value must come back exactly as a bound parameter would have it.
 * (Text is lone-surrogate free: Postgres' UTF-8 cannot hold a lone surrogate, bound or not.)
 */
const TEXTS = [
  "it's",
  "''; DROP TABLE runs; --",
  'back\\slash \\n not a newline \\\\ two',
  "E'\\x41' is not A",
  'line one\nline two\r\n\ttabbed',
  '$1 $$ dollar $tag$ quoting $tag$',
  "the batch's own dollar-quote tag $rt$ inside, and $rt$ again",
  'ends with what the closing tag completes: $rt',
  'ends with a dollar $',
  '$rtx$ $r$ $rt',
  'naïve café — “quotes” ‘single’',
  '日本語 العربية עברית',
  'astral: 🚀 𝄞 𠜎 👩‍👩‍👧 (ZWJ) 🇫🇷',
  '',
  ' ',
  '%_ like wildcards',
];

let db: TestDatabase;
let ds: DataSource;

beforeAll(async () => {
  db = await createTestDatabase({ migrate: true });
  ds = createDataSource(db.url, { poolSize: 2 });
  await ds.initialize();
});
afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

/** Runs statements in one batch on a query runner's connection, inside a transaction rolled back after. */
async function inBatch(statements: { sql: string; params: unknown[] }[]) {
  const runner = ds.createQueryRunner();
  try {
    await runner.connect();
    const batch = new StatementBatch(runner);
    for (const s of statements) batch.add(s.sql, s.params);
    return await batch.flush({ before: 'BEGIN', after: 'ROLLBACK' });
  } finally {
    await runner.release();
  }
}

describe('StatementBatch escapes its literal arguments exactly', () => {
  it('text: quotes, backslashes, control characters, dollar quoting, unicode including astral characters', async () => {
    const sql = `SELECT $1::text AS v, octet_length($1::text) AS bytes`;
    const results = await inBatch(TEXTS.map((t) => ({ sql, params: [t] })));
    for (const [i, t] of TEXTS.entries()) {
      const bound = await preparedQuery<{ v: string; bytes: number }>(ds, sql, [t]);
      expect(results[i].rows[0]).toEqual(bound.rows[0]);
      expect(results[i].rows[0].v).toBe(t);
      expect(results[i].rows[0].bytes).toBe(Buffer.byteLength(t, 'utf8'));
    }
  });

  it('jsonb: objects and arrays (JS arrays go as JSON, never as Postgres arrays) holding every hard text', async () => {
    const value = { texts: TEXTS, nested: { "k'ey": 'v\\"al', list: [1, -2.5, null, true, { '🚀': '𝄞' }] }, empty: [], none: null };
    const sql = `SELECT $1::jsonb AS v, jsonb_typeof($1::jsonb) AS t`;
    const [obj, arr] = await inBatch([
      { sql, params: [value] },
      { sql, params: [TEXTS] },
    ]);
    expect(obj.rows[0]).toEqual({ v: value, t: 'object' });
    expect(arr.rows[0]).toEqual({ v: TEXTS, t: 'array' });
    // Already-serialised JSON text (what jsonParam hands the batch) arrives as the same document.
    const [asText] = await inBatch([{ sql, params: [JSON.stringify(value)] }]);
    expect(asText.rows[0].v).toEqual(value);
  });

  it('NULL for null and undefined, into any type', async () => {
    const [r] = await inBatch([{ sql: `SELECT $1::text IS NULL AS a, $2::jsonb IS NULL AS b, $3::int IS NULL AS c, $4::timestamptz IS NULL AS d`, params: [null, undefined, null, null] }]);
    expect(r.rows[0]).toEqual({ a: true, b: true, c: true, d: true });
  });

  it('numbers, bigints, booleans and dates as the types the statement was prepared with', async () => {
    const at = new Date('2026-03-04T05:06:07.089Z');
    const [r] = await inBatch([
      {
        sql: `SELECT $1::int AS i, $2::numeric::text AS n, $3::float8 AS f, $4::bigint::text AS b, $5::boolean AS t, $6::boolean AS fa, $7::timestamptz AS at`,
        params: [-42, 0.1 + 0.2, 1e-7, 9007199254740993n, true, false, at],
      },
    ]);
    expect(r.rows[0]).toEqual({ i: -42, n: String(0.1 + 0.2), f: 1e-7, b: '9007199254740993', t: true, fa: false, at });
  });

  it('refuses a number a literal cannot carry, before anything is sent', async () => {
    await expect(inBatch([{ sql: `SELECT $1::float8 AS v`, params: [Number.NaN] }])).rejects.toThrow('a batched statement cannot take the number NaN');
    await expect(inBatch([{ sql: `SELECT $1::float8 AS v`, params: [Infinity] }])).rejects.toThrow('a batched statement cannot take the number Infinity');
  });

  it('writes and reads back rows of the migrated schema whose text and jsonb columns hold every hard text (as the step writer does)', async () => {
    await ds.query(`INSERT INTO projects (id, name, objective, requirements, config) VALUES ('prj_esc', 'p', 'o', '[]', '{}')`);
    await ds.query(`INSERT INTO runs (id, project_id, workflow, status, stage, config) VALUES ('run_esc', 'prj_esc', 'build', 'running', 'PROPOSE', '{}')`);
    const runner = ds.createQueryRunner();
    try {
      await runner.connect();
      const batch = new StatementBatch(runner);
      for (const t of TEXTS) batch.add(`INSERT INTO open_questions (run_id, raised_by_role, question, status) VALUES ($1, $2, $3, 'open')`, ['run_esc', t, t]);
      batch.add(`INSERT INTO decisions (run_id, from_stage, to_stage, reason, refs) VALUES ($1, 'PROPOSE', 'CRITIQUE', $2, $3)`, ['run_esc', TEXTS.join('|'), JSON.stringify(TEXTS)]);
      await batch.flush({ before: 'BEGIN', after: 'COMMIT' });
    } finally {
      await runner.release();
    }
    const questions = await ds.query(`SELECT raised_by_role, question FROM open_questions WHERE run_id = 'run_esc' ORDER BY id`);
    expect(questions).toEqual(TEXTS.map((t) => ({ raised_by_role: t, question: t })));
    const [decision] = await ds.query(`SELECT reason, refs FROM decisions WHERE run_id = 'run_esc'`);
    expect(decision).toEqual({ reason: TEXTS.join('|'), refs: TEXTS });
  });
});
