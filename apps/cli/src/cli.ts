import { ApiClient, ApiHttpError, ApiUnreachableError } from './api-client';
import { parseCli, ParsedCli, UsageError } from './cli-args';
import { CommandContext, makeContext } from './command-context';
import { answerCommand } from './commands/answer.command';
import { appealCommand } from './commands/appeal.command';
import { auditCommand } from './commands/audit.command';
import { decisionCommand } from './commands/approve.command';
import { callCommand } from './commands/call.command';
import { callShowCommand } from './commands/call-show.command';
import { callsCommand } from './commands/calls.command';
import { cancelCommand } from './commands/cancel.command';
import { evalCommand } from './commands/eval.command';
import { experimentCommand } from './commands/experiment.command';
import { eventsCommand } from './commands/events.command';
import { forkCommand } from './commands/fork.command';
import { ideaCommand } from './commands/idea.command';
import { reportCommand } from './commands/report.command';
import { exportCommand } from './commands/export.command';
import { verifyCommand } from './commands/verify.command';
import { resumeCommand } from './commands/resume.command';
import { runCommand } from './commands/run.command';
import { runsCommand } from './commands/runs.command';
import { showCommand } from './commands/show.command';
import { usageCommand } from './commands/usage.command';
import { watchCommand } from './commands/watch.command';
import { EXIT } from './exit-codes';
import { commandHelp, mainHelp } from './help';
import { ProjectFileError } from './project-file';
import { SseGaveUpError } from './sse-client';
import type { CliIo } from './terminal';

const HANDLERS: Record<string, (ctx: CommandContext) => Promise<number>> = {
  run: runCommand,
  runs: runsCommand,
  show: showCommand,
  calls: callsCommand,
  'call-show': callShowCommand,
  report: reportCommand,
  resume: resumeCommand,
  fork: forkCommand,
  cancel: cancelCommand,
  approve: decisionCommand('approve'),
  reject: decisionCommand('reject'),
  answer: answerCommand,
  events: eventsCommand,
  watch: watchCommand,
  appeal: appealCommand,
  call: callCommand,
  eval: evalCommand,
  idea: ideaCommand,
  experiment: experimentCommand,
  audit: auditCommand,
  verify: verifyCommand,
  export: exportCommand,
  usage: usageCommand,
};

interface ErrorReport {
  error: string;
  message: string;
  status?: number;
  issues?: { path: string; message: string }[];
}

/** Every failure as `{error, message, …}` for --json, and as the human lines otherwise. */
function describeError(err: unknown, cli: ParsedCli | null): { report: ErrorReport; lines: string[] } {
  if (err instanceof UsageError) {
    const help = err.command ?? cli?.command ?? null;
    return {
      report: { error: 'usage', message: err.message },
      lines: [`roundtable: ${err.message}`, `see: roundtable ${help ? `${help} ` : ''}--help`],
    };
  }
  if (err instanceof ApiUnreachableError) return { report: { error: 'api_unreachable', message: err.message }, lines: [err.message] };
  if (err instanceof ProjectFileError) {
    const report: ErrorReport = { error: 'project_file', message: err.message };
    if (err.issues.length) report.issues = err.issues;
    return { report, lines: [err.message] };
  }
  if (err instanceof ApiHttpError) {
    const report: ErrorReport = { error: err.code, message: err.apiMessage, status: err.status };
    if (err.issues.length) report.issues = err.issues;
    if (err.status === 400 && err.issues.length) {
      // The issues carry the detail; the message's first line is kept only when it adds something
      // ("invalid project config:"), not when it merely joins the issues.
      const first = err.apiMessage.split('\n')[0];
      const repeats = first === err.issues.map((i) => i.message).join('; ');
      return {
        report,
        lines: [
          `the API refused the request (HTTP 400 ${err.code})${repeats ? ':' : `: ${first}`}`,
          ...err.issues.map((i) => `  ${i.path || '(root)'}: ${i.message}`),
        ],
      };
    }
    return { report, lines: [`${err.method} ${err.route}: HTTP ${err.status} ${err.code}: ${err.apiMessage}`] };
  }
  if (err instanceof SseGaveUpError) return { report: { error: 'stream_lost', message: err.message }, lines: [err.message] };
  const message = err instanceof Error ? err.message : String(err);
  return { report: { error: 'internal', message }, lines: [`roundtable: ${message}`] };
}

/** The whole CLI as a function: argv in, exit code out, output through `io` (tests pass their own). */
export async function runCli(argv: string[], io: CliIo, signal?: AbortSignal): Promise<number> {
  let cli: ParsedCli | null = null;
  try {
    cli = parseCli(argv, io.env);
    if (cli.help || cli.command === null) {
      io.stdout.write(`${cli.command ? commandHelp(cli.command) : mainHelp()}\n`);
      // A bare `roundtable` is a usage mistake; asking for help is not.
      return cli.help ? EXIT.OK : EXIT.ERROR;
    }
    const client = new ApiClient({ api: cli.api, token: cli.token });
    return await HANDLERS[cli.command](makeContext(cli, client, io, signal));
  } catch (err) {
    const { report, lines } = describeError(err, cli);
    io.stderr.write(cli?.json ? `${JSON.stringify(report)}\n` : lines.map((l) => `${l}\n`).join(''));
    return EXIT.ERROR;
  }
}
