import { loadFakeScript, startFakeLlmServer } from '@roundtable/testing';

/**
 * The fake LLM wire server as a process of its own, for the compose smoke: it listens on every
 * interface of the host so a provider-worker container reaches it through the host's gateway
 * (`host.docker.internal`), answers from a cassette's replies (their prompt guards checked),
 * prints its port as one JSON line, and on SIGTERM prints how many requests it answered.
 *
 *   node dist/test/fake-llm-host.js <cassette.yaml> [host]
 */
async function main(): Promise<void> {
  const [cassette, host = '0.0.0.0'] = process.argv.slice(2);
  if (!cassette) throw new Error('usage: fake-llm-host <cassette.yaml> [host]');
  const server = await startFakeLlmServer({ script: { replies: loadFakeScript(cassette).replies }, host });
  console.log(JSON.stringify({ port: server.port }));
  process.on('SIGTERM', () => {
    const answered = server.requests.length;
    const keyed = server.requests.filter((r) => r.headers['x-api-key'] === '<redacted>').length;
    console.log(JSON.stringify({ requests: answered, with_key: keyed }));
    void server.close().then(() => process.exit(0));
  });
}

main().catch((e: Error) => {
  console.error(`fake-llm-host: ${e.message}`);
  process.exit(1);
});
