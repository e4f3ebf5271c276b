import { parseCli, UsageError } from '../cli-args';
import { runCli } from '../cli';
import { captureIo, FakeApi, sendJson, startFakeApi } from '../fake-api.fixture';
import { runsQueryOf } from './runs.command';

const queryOf = (...argv: string[]) => runsQueryOf(parseCli(['runs', ...argv]).options);

describe('roundtable runs: --search, --from, --to, --cursor', () => {
  it('sends them as q, from, to and cursor beside the other filters', () => {
    expect(queryOf('--search', '100% a_b', '--from', '2026-01-02', '--to', '2026-01-31T12:00:00Z', '--status', 'done', '--limit', '3', '--cursor', 'abc_-9')).toBe(
      '?status=done&q=100%25+a_b&from=2026-01-02&to=2026-01-31T12%3A00%3A00Z&limit=3&cursor=abc_-9',
    );
    expect(queryOf()).toBe('');
    expect(queryOf('--search', '  ')).toBe('');
  });

  it.each([
    [['--from', 'yesterday'], '--from needs an ISO date (2026-01-31) or a date-time with its zone (2026-01-31T12:00:00Z), got yesterday'],
    [['--to', '2026-01-31T12:00'], '--to needs an ISO date (2026-01-31) or a date-time with its zone (2026-01-31T12:00:00Z), got 2026-01-31T12:00'],
    [['--cursor', ' '], '--cursor needs the cursor an earlier `roundtable runs` printed'],
  ])('refuses %j before asking the api', (argv, message) => {
    expect(() => queryOf(...argv)).toThrow(new UsageError(message));
  });

  it('knows the flags: a misspelt one or a missing value is a usage error', () => {
    expect(() => parseCli(['runs', '--serch', 'x'])).toThrow(UsageError);
    expect(() => parseCli(['runs', '--cursor'])).toThrow(UsageError);
  });

  describe('against an api', () => {
    let api: FakeApi | undefined;
    afterEach(async () => {
      await api?.close();
      api = undefined;
    });

    const list = [{ id: 'run_b', project: 'dd-demo', workflow: 'build', status: 'done', stage: 'DONE', verdict: null, created_at: '2026-01-02T00:00:00.000Z', finished_at: null }];

    it('prints the next cursor on stderr when there is one, stdout keeping the rows and the JSON array', async () => {
      api = await startFakeApi((_req, res) => {
        res.setHeader('X-Next-Cursor', 'next_page-1');
        sendJson(res, 200, list);
      });
      const plain = captureIo();
      expect(await runCli(['runs', '--search', 'dd', '--cursor', 'prev', '--limit', '1', '--api', api.url], plain.io)).toBe(0);
      expect(api.requests[0].url).toBe('/v1/runs?q=dd&limit=1&cursor=prev');
      expect(plain.stdout()).toBe('run_b\tdone\tDONE\t-\tdd-demo\t2026-01-02T00:00:00.000Z\n');
      expect(plain.stderr()).toBe('next cursor: next_page-1\n');

      const json = captureIo();
      expect(await runCli(['runs', '--json', '--api', api.url], json.io)).toBe(0);
      expect(JSON.parse(json.stdout())).toEqual(list);
      expect(json.stderr()).toBe('next cursor: next_page-1\n');
    });

    it('prints no cursor on the last page', async () => {
      api = await startFakeApi((_req, res) => sendJson(res, 200, list));
      const plain = captureIo();
      expect(await runCli(['runs', '--from', '2026-01-01', '--to', '2026-01-31', '--api', api.url], plain.io)).toBe(0);
      expect(api.requests[0].url).toBe('/v1/runs?from=2026-01-01&to=2026-01-31');
      expect(plain.stderr()).toBe('');
    });
  });
});
