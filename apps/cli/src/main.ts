#!/usr/bin/env node
import { runCli } from './cli';
import { isFollowing } from './follow-run';

// A reader that stopped reading (`roundtable runs | head -1`) closes the pipe: that is the reader's choice,
// not a failure, so the CLI ends quietly with 0, as cat and ls do, instead of an unhandled EPIPE's stack.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

// Ctrl-C while following stops the follow and says the run keeps going; otherwise (or a
// second time) it exits at once, as without a handler.
const interrupt = new AbortController();
process.on('SIGINT', () => {
  if (interrupt.signal.aborted || !isFollowing()) process.exit(130);
  interrupt.abort();
});

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() }, interrupt.signal).then(
  (code) => {
    // exitCode, not exit(): stdout may still be draining into a pipe.
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`roundtable: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
