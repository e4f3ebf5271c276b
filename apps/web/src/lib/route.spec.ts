import { auditPath, callPath, comparePath, EMPTY_RUNS_FILTER, evalPath, experimentPath, ideaPath, routeOf, RUN_TABS, runPath, runTabPath, runsFilterOf, runsSearchOf, withRunsFilter } from './route';

describe('routeOf', () => {
  it('knows each page', () => {
    expect(routeOf('/')).toEqual({ page: 'runs' });
    expect(routeOf('/runs')).toEqual({ page: 'runs' });
    expect(routeOf('/new')).toEqual({ page: 'new' });
    expect(routeOf('/runs/r-1')).toEqual({ page: 'run', runId: 'r-1', tab: 'overview' });
    expect(routeOf('/runs/r-1/calls')).toEqual({ page: 'run', runId: 'r-1', tab: 'calls' });
    expect(routeOf('/runs/r-1/events/')).toEqual({ page: 'run', runId: 'r-1', tab: 'events' });
    expect(routeOf('/runs/r-1/calls/c 2'.replace(' ', '%20'))).toEqual({ page: 'call', runId: 'r-1', callId: 'c 2' });
    expect(routeOf('/nope/x')).toEqual({ page: 'not-found', path: '/nope/x' });
  });

  it('builds the paths it reads', () => {
    expect(routeOf(callPath('r/1', 'c1'))).toEqual({ page: 'call', runId: 'r/1', callId: 'c1' });
    expect(routeOf(runPath('abc'))).toEqual({ page: 'run', runId: 'abc', tab: 'overview' });
    for (const tab of RUN_TABS) expect(routeOf(runTabPath('r/1', tab))).toEqual({ page: 'run', runId: 'r/1', tab });
    expect(runTabPath('abc', 'overview')).toBe('/runs/abc');
    expect(runTabPath('abc', 'diff')).toBe('/runs/abc/diff');
  });

  it('reads /ideas and /ideas/<id> with its ?version=N, and builds the path it reads (issue 23)', () => {
    expect(routeOf('/ideas')).toEqual({ page: 'ideas' });
    expect(routeOf('/ideas/')).toEqual({ page: 'ideas' });
    expect(routeOf('/ideas/idea_0123456789')).toEqual({ page: 'idea', ideaId: 'idea_0123456789', version: null });
    expect(routeOf('/ideas/idea_0123456789', '?version=2')).toEqual({ page: 'idea', ideaId: 'idea_0123456789', version: 2 });
    // Not a version number: the latest.
    for (const bad of ['?version=0', '?version=2.5', '?version=x', '?version=-1', '?version='])
      expect(routeOf('/ideas/idea_0123456789', bad)).toEqual({ page: 'idea', ideaId: 'idea_0123456789', version: null });
    expect(routeOf('/ideas/idea_1/versions').page).toBe('not-found');
    expect(ideaPath('idea_0123456789')).toBe('/ideas/idea_0123456789');
    expect(ideaPath('idea_0123456789', 3)).toBe('/ideas/idea_0123456789?version=3');
    const url = new URL(ideaPath('idea 1', 4), 'http://h');
    expect(routeOf(url.pathname, url.search)).toEqual({ page: 'idea', ideaId: 'idea 1', version: 4 });
  });

  it('reads /experiments and /experiments/<id>, and builds the path it reads (issue 24)', () => {
    expect(routeOf('/experiments')).toEqual({ page: 'experiments' });
    expect(routeOf('/experiments/exp_0123456789')).toEqual({ page: 'experiment', experimentId: 'exp_0123456789' });
    expect(routeOf(experimentPath('exp 1'))).toEqual({ page: 'experiment', experimentId: 'exp 1' });
    expect(routeOf('/experiments/exp_1/report').page).toBe('not-found');
    expect(routeOf('/runs/r1/experiment')).toEqual({ page: 'run', runId: 'r1', tab: 'experiment' });
  });

  it('reads /evals and /evals/<id>, and builds the path it reads (issue 25)', () => {
    expect(routeOf('/evals')).toEqual({ page: 'evals' });
    expect(routeOf('/evals/')).toEqual({ page: 'evals' });
    expect(routeOf('/evals/eval_0123456789')).toEqual({ page: 'eval', evalId: 'eval_0123456789' });
    expect(routeOf(evalPath('eval 1'))).toEqual({ page: 'eval', evalId: 'eval 1' });
    expect(evalPath('eval_1')).toBe('/evals/eval_1');
    expect(routeOf('/evals/eval_1/plot.svg').page).toBe('not-found');
  });

  it('reads /audit and its project, and builds the path it reads (issue 25)', () => {
    expect(routeOf('/audit')).toEqual({ page: 'audit', project: '' });
    expect(routeOf('/audit', '?project=dd-demo')).toEqual({ page: 'audit', project: 'dd-demo' });
    const [path, search] = auditPath('my project').split('?');
    expect(routeOf(path, `?${search}`)).toEqual({ page: 'audit', project: 'my project' });
    expect(auditPath('  ')).toBe('/audit');
    expect(routeOf('/audit/x').page).toBe('not-found');
  });

  it('reads the two runs of /compare from its query, and builds the path it reads', () => {
    expect(routeOf('/compare', '?a=run_1&b=run_2')).toEqual({ page: 'compare', a: 'run_1', b: 'run_2' });
    expect(routeOf('/compare/', '?b=run_2')).toEqual({ page: 'compare', a: '', b: 'run_2' });
    expect(routeOf('/compare')).toEqual({ page: 'compare', a: '', b: '' });
    expect(comparePath('run_1', 'run 2&x')).toBe('/compare?a=run_1&b=run+2%26x');
    const url = new URL(comparePath('run_1', 'run 2&x'), 'http://h');
    expect(routeOf(url.pathname, url.search)).toEqual({ page: 'compare', a: 'run_1', b: 'run 2&x' });
    expect(comparePath('run_1')).toBe('/compare?a=run_1');
    expect(routeOf('/compare', comparePath('run_1').slice('/compare'.length))).toEqual({ page: 'compare', a: 'run_1', b: '' });
    expect(routeOf('/compare/x', '?a=1&b=2')).toEqual({ page: 'not-found', path: '/compare/x' });
  });

  it('knows no tab it does not have, and no second path to the overview', () => {
    expect(routeOf('/runs/r-1/nope')).toEqual({ page: 'not-found', path: '/runs/r-1/nope' });
    expect(routeOf('/runs/r-1/overview')).toEqual({ page: 'not-found', path: '/runs/r-1/overview' });
  });
});

describe('the runs list in the URL', () => {
  it('reads every control from the query string, and writes it back the same', () => {
    const f = runsFilterOf('?q=zebra%20curve&status=done&workflow=panel&from=2026-01-02&to=2026-01-31&limit=150');
    expect(f).toEqual({ q: 'zebra curve', status: 'done', workflow: 'panel', from: '2026-01-02', to: '2026-01-31', limit: 150 });
    expect(runsSearchOf(f)).toBe('?q=zebra+curve&status=done&workflow=panel&from=2026-01-02&to=2026-01-31&limit=150');
    expect(runsFilterOf(runsSearchOf(f))).toEqual(f);
  });

  it('is the empty query for the default list, and the default for an empty query', () => {
    expect(runsFilterOf('')).toEqual(EMPTY_RUNS_FILTER);
    expect(runsSearchOf(EMPTY_RUNS_FILTER)).toBe('');
    expect(runsSearchOf({ ...EMPTY_RUNS_FILTER, q: '   ' })).toBe('');
  });

  it('keeps % and _ and & in the search as typed', () => {
    const f = { ...EMPTY_RUNS_FILTER, q: '100% a_b & c' };
    expect(runsFilterOf(runsSearchOf(f)).q).toBe('100% a_b & c');
  });

  it('drops what a control cannot show: a date not YYYY-MM-DD, a limit not past one page; rounds a limit to pages, at most 500', () => {
    expect(runsFilterOf('?from=yesterday&to=2026-1-2')).toMatchObject({ from: '', to: '' });
    expect(runsFilterOf('?limit=abc').limit).toBe(50);
    expect(runsFilterOf('?limit=10').limit).toBe(50);
    expect(runsFilterOf('?limit=70').limit).toBe(100);
    expect(runsFilterOf('?limit=9000').limit).toBe(500);
  });

  it('goes back to one page when a filter changes', () => {
    const f = { ...EMPTY_RUNS_FILTER, status: 'done', limit: 200 };
    expect(withRunsFilter(f, { q: 'x' })).toEqual({ ...f, q: 'x', limit: 50 });
  });
});
