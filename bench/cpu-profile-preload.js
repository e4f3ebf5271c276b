// A CPU profiler for the services the bench starts, switched by signal so that a profile covers
// one phase and not the start-up:
//   BENCH_SERVICE_NODE_OPTIONS="--require $PWD/bench/cpu-profile-preload.js" BENCH_PROFILE_DIR=/tmp/prof
// With BENCH_PROFILE_DIR set, the panel phase sends SIGUSR2 to each service before its 50
// concurrent runs (start) and after them (stop and write <dir>/<service>-<pid>.cpuprofile, which
// Chrome DevTools opens; bench/profile-summary.mjs prints self time by function and package).
// (`--cpu-prof` is not allowed in NODE_OPTIONS, and would profile the whole life of the process.)
'use strict';
const { Session } = require('node:inspector');
const { writeFileSync } = require('node:fs');
const path = require('node:path');

const dir = process.env.BENCH_PROFILE_DIR;
if (dir) {
  const service = path.basename(path.dirname(process.argv[1] || 'node'));
  const session = new Session();
  session.connect();
  let running = false;
  process.on('SIGUSR2', () => {
    if (!running) {
      running = true;
      session.post('Profiler.enable', () => session.post('Profiler.setSamplingInterval', { interval: 500 }, () => session.post('Profiler.start')));
      return;
    }
    running = false;
    session.post('Profiler.stop', (err, res) => {
      if (err) return process.stderr.write(`cpu-profile-preload: ${err.message}\n`);
      const file = path.join(dir, `${service}-${process.pid}.cpuprofile`);
      writeFileSync(file, JSON.stringify(res.profile));
      process.stderr.write(`cpu-profile-preload: wrote ${file}\n`);
    });
  });
}
