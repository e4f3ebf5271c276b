import { isRoute, routeForm, underMount } from './route-paths';

describe('routeForm / isRoute: a path as Express matches it', () => {
  it.each([
    ['/healthz', '/healthz'],
    ['/HEALTHZ', '/healthz'],
    ['/Healthz/', '/healthz'],
    ['/', '/'],
  ])('%s → %s', (path, form) => {
    expect(routeForm(path)).toBe(form);
  });

  it('does not fold what the router does not: two trailing slashes, escapes', () => {
    expect(isRoute('/healthz//', '/healthz')).toBe(false);
    expect(isRoute('/%68ealthz', '/healthz')).toBe(false);
    expect(isRoute('/healthz/x', '/healthz')).toBe(false);
  });
});

describe('underMount: whether a path reaches a protected subtree', () => {
  it.each(['/admin/queues', '/ADMIN/QUEUES', '/Admin/Queues/', '/admin/queues/api/queues', '/admin/%71ueues', '/%61dmin/queues', '/admin%2Fqueues', '/admin//queues', '/admin/queues%2F'])(
    '%s is under /admin/queues',
    (path) => {
      expect(underMount(path, '/admin/queues')).toBe(true);
    },
  );

  it.each(['/admin/queuesx', '/admin', '/v1/runs', '/admin/queue', '/%zz/admin'])('%s is not', (path) => {
    expect(underMount(path, '/admin/queues')).toBe(false);
  });
});
