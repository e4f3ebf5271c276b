import { callPath, routeOf, runPath } from './route';

describe('routeOf', () => {
  it('knows each page', () => {
    expect(routeOf('/')).toEqual({ page: 'runs' });
    expect(routeOf('/runs')).toEqual({ page: 'runs' });
    expect(routeOf('/new')).toEqual({ page: 'new' });
    expect(routeOf('/runs/r-1')).toEqual({ page: 'run', runId: 'r-1' });
    expect(routeOf('/runs/r-1/calls/c 2'.replace(' ', '%20'))).toEqual({ page: 'call', runId: 'r-1', callId: 'c 2' });
    expect(routeOf('/nope/x')).toEqual({ page: 'not-found', path: '/nope/x' });
  });

  it('builds the paths it reads', () => {
    expect(routeOf(callPath('r/1', 'c1'))).toEqual({ page: 'call', runId: 'r/1', callId: 'c1' });
    expect(routeOf(runPath('abc'))).toEqual({ page: 'run', runId: 'abc' });
  });
});
