// Submits a project file to a running Roundtable API, follows the run to its end, and saves
// the report. Used by `npm run demo`; works against any API:
//
//   node scripts/run-demo.mjs <project.yaml> [--api http://127.0.0.1:3000] [--timeout 300]
//
// `${VAR}` / `${VAR:-default}` are expanded from this shell before posting (the API expands
// none). Every request carries `Authorization: Bearer $ROUNDTABLE_TOKEN` when it is set, else the
// first write token of API_TOKENS when that is set (the line it prints names which, never the
// secret), else none. Exit: 0 when the run is done, 2 when it halted or needs input, 1 otherwise (including
// a variable unset with no default, which stops it before posting, and a config the API
// refused: every issue is printed).
import { build } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { bundleOptions, root } from '../tools/bundle-options.mjs';

const TERMINAL = new Set(['done', 'halted', 'needs_input', 'cancelled', 'failed']);
const POLL_MS = 300;

function usage(message) {
  if (message) console.error(message);
  console.error('usage: node scripts/run-demo.mjs <project.yaml> [--api <url>] [--timeout <seconds>] [--sandbox process|docker]');
  process.exit(1);
}

function parseArgs(argv) {
  const opts = { api: process.env.ROUNDTABLE_API ?? 'http://127.0.0.1:3000', timeoutS: 300, file: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--api') opts.api = argv[++i];
    else if (a === '--timeout') opts.timeoutS = Number(argv[++i]);
    else if (a === '--sandbox') opts.sandbox = argv[++i];
    else if (a.startsWith('--')) usage(`unknown option ${a}`);
    else if (!opts.file) opts.file = a;
    else usage(`unexpected argument ${a}`);
  }
  if (!opts.file) usage('no project file given');
  if (!opts.api) usage('--api needs a URL');
  if (!Number.isFinite(opts.timeoutS) || opts.timeoutS <= 0) usage('--timeout needs a positive number of seconds');
  opts.api = opts.api.replace(/\/+$/, '');
  return opts;
}

/**
 * The CLI's own reader (apps/cli/src/project-file.ts), bundled from source in memory: a project
 * file is read the same way whichever client posts it, `${VAR}` expanded from this shell (the
 * services expand none) and paths made absolute, with no second copy of either here to drift.
 */
async function projectFileReader() {
  const outfile = 'dist/scripts/project-file.js';
  await build({ ...bundleOptions('apps/cli/src/project-file.ts', outfile), logLevel: 'error' });
  // The bundle leaves node_modules external: require resolves them from this repository.
  return createRequire(import.meta.url)(path.join(root, outfile));
}

/** apps/cli/src/demo-token.ts, bundled the same way: which token to send, and the line naming it. */
async function demoTokenChooser() {
  const outfile = 'dist/scripts/demo-token.js';
  await build({ ...bundleOptions('apps/cli/src/demo-token.ts', outfile), logLevel: 'error' });
  return createRequire(import.meta.url)(path.join(root, outfile));
}

/** The bearer token every request carries (ROUNDTABLE_TOKEN, else API_TOKENS' first write token), or null. */
let bearer = null;

async function request(api, method, route, body) {
  const url = `${api}${route}`;
  let res;
  try {
    res = await fetch(url, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    throw new Error(`${method} ${url} failed: ${err.cause?.message ?? err.message}`);
  }
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, ok: res.ok, text, json };
}

function printIssues(res) {
  const body = res.json ?? {};
  console.error(`the API refused the project (HTTP ${res.status}): ${body.message?.split('\n')[0] ?? res.text}`);
  const issues = Array.isArray(body.issues) ? body.issues : [];
  for (const issue of issues) {
    if (typeof issue === 'string') console.error(`  ${issue}`);
    else console.error(`  ${issue.path || '(root)'}: ${issue.message}`);
  }
}

function describe(run) {
  const bits = [`status ${run.status}`];
  if (run.round !== undefined && run.round !== null) bits.push(`round ${run.round}`);
  if (run.fix_round) bits.push(`fix round ${run.fix_round}`);
  const calls = run.usage?.calls;
  if (calls !== undefined) bits.push(`calls ${calls}${run.caps?.max_calls ? `/${run.caps.max_calls}` : ''}`);
  return bits.join(', ');
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const { loadProjectFile } = await projectFileReader();
  let config;
  try {
    config = loadProjectFile(opts.file, process.cwd(), process.env);
  } catch (err) {
    // Unreadable, not YAML, or a variable unset with no default: nothing was posted.
    console.error(err.message);
    return 1;
  }

  const { chooseDemoToken, describeDemoToken } = await demoTokenChooser();
  const token = chooseDemoToken(process.env);
  console.log(`demo: ${describeDemoToken(token)}`);
  if (token.token === null && token.problem) return 1;
  bearer = token.token;

  // demo.sh passes --sandbox process when no Docker engine can be had on this machine.
  if (opts.sandbox) config.sandbox = opts.sandbox;
  const submitted = await request(opts.api, 'POST', '/v1/runs', config);
  if (submitted.status === 400) {
    printIssues(submitted);
    return 1;
  }
  if (!submitted.ok || !submitted.json?.id) {
    console.error(`POST /v1/runs answered HTTP ${submitted.status}: ${submitted.text.slice(0, 2000)}`);
    return 1;
  }
  const id = submitted.json.id;
  console.log(`run ${id} submitted`);

  const deadline = Date.now() + opts.timeoutS * 1000;
  let run;
  let lastStage;
  for (;;) {
    const res = await request(opts.api, 'GET', `/v1/runs/${encodeURIComponent(id)}`);
    if (!res.ok || !res.json) {
      console.error(`GET /v1/runs/${id} answered HTTP ${res.status}: ${res.text.slice(0, 2000)}`);
      return 1;
    }
    run = res.json;
    if (run.stage !== lastStage) {
      console.log(`[${run.stage}] ${describe(run)}`);
      lastStage = run.stage;
    }
    if (TERMINAL.has(run.status)) break;
    if (Date.now() >= deadline) {
      console.error(`run ${id} is still ${run.status} at stage ${run.stage} after ${opts.timeoutS}s; giving up waiting (it keeps running)`);
      break;
    }
    await sleep(POLL_MS);
  }
  if (run.halt_reason) console.log(`halt reason: ${run.halt_reason}`);

  const reportPath = path.join('runs', id, 'report.md');
  const report = await request(opts.api, 'GET', `/v1/runs/${encodeURIComponent(id)}/report`);
  if (report.ok) {
    mkdirSync(path.dirname(reportPath), { recursive: true });
    writeFileSync(reportPath, report.text);
  } else {
    console.error(`GET /v1/runs/${id}/report answered HTTP ${report.status}: ${report.text.slice(0, 500)}`);
  }

  // The run's record as the api recomputes it from the rows (issue 26): an untouched run is intact.
  const verified = await request(opts.api, 'GET', `/v1/runs/${encodeURIComponent(id)}/verify`);
  const verdict = verified.ok ? verified.json : null;

  console.log(`run: ${id}`);
  console.log(`verdict: ${run.verdict ?? 'none'} (status ${run.status})`);
  console.log(`report: ${report.ok ? reportPath : 'not written'}`);
  if (!verdict) {
    console.error(`GET /v1/runs/${id}/verify answered HTTP ${verified.status}: ${verified.text.slice(0, 500)}`);
    return 1;
  }
  if (!verdict.intact) {
    console.error(`record: NOT intact — ${verdict.kind} at ${JSON.stringify(verdict.at)}: ${verdict.detail}`);
    return 1;
  }
  console.log(`record: intact (${verdict.events} events, ${verdict.calls} calls, head ${verdict.head}; roundtable verify ${id})`);
  if (run.status === 'done') return 0;
  if (run.status === 'halted' || run.status === 'needs_input') return 2;
  return 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
