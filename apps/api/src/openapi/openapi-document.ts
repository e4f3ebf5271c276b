import { z } from 'zod';
import { RunStatus } from '@roundtable/contracts';
import { CALL_ROLES, CALL_STAGES, WORKFLOWS } from '../query-params';
import { MAX_FILE_PATH_CHARS } from '../workspace-file-path';
import { WORKBENCH_CSP } from '../workbench.handler';
import { AUTH_ERRORS, callId, error, json, location, ref, runId, WRITE_ERRORS } from './openapi-parts';
import { evalPaths } from './eval-paths';
import { experimentPaths } from './experiment-paths';
import { ideaPaths } from './idea-paths';
import { REPLY_SCHEMAS, REQUEST_SCHEMAS } from './openapi-schemas';
import { RUN_EVENT_DISCRIMINATOR } from './run-event-frames.schema';

type JsonObject = Record<string, unknown>;


/** One registry per direction, so a schema used by another is a $ref to its component, not a copy. */
function componentsOf(schemas: Record<string, z.ZodType>, io: 'input' | 'output'): Record<string, JsonObject> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(schemas)) registry.add(schema, { id });
  const { schemas: out } = z.toJSONSchema(registry, { io, unrepresentable: 'any', target: 'draft-2020-12', uri: (id) => `#/components/schemas/${id}` });
  return Object.fromEntries(
    Object.entries(out).map(([id, s]) => {
      const { $schema: _s, $id: _i, ...rest } = s as JsonObject;
      return [id, rest];
    }),
  );
}

/** zod writes the events union as a plain oneOf; OpenAPI's discriminator tells a reader (and Swagger UI) that `type` picks the branch. */
function withEventDiscriminator(schemas: Record<string, JsonObject>): Record<string, JsonObject> {
  return { ...schemas, RunEvent: { ...schemas.RunEvent, discriminator: RUN_EVENT_DISCRIMINATOR } };
}


export interface OpenApiSettings {
  version: string;
  bodyLimit: string;
  writesPerMinute: number;
}

/**
 * The OpenAPI 3.1 document of the REST API, built from the zod schemas the API validates requests
 * with and types its replies by (z.toJSONSchema). Served at /docs/openapi.json, rendered at /docs.
 */
export function buildOpenApiDocument(s: OpenApiSettings): JsonObject {
  const tooLarge = error(`The body is larger than API_BODY_LIMIT (${s.bodyLimit}).`);
  const writeNote = `Needs a write token. At most ${s.writesPerMinute} writes a minute per token; bodies up to ${s.bodyLimit}.`;
  return {
    openapi: '3.1.0',
    info: {
      title: 'Roundtable API',
      version: s.version,
      description: [
        'Submit, follow and inspect runs of LLM teams. Every route except /healthz and /readyz needs `Authorization: Bearer <token>`',
        '(tokens from API_TOKENS, role `read` or `write`; writes need `write`). Bull Board, the queue dashboard, is at /admin/queues (write tokens only).',
      ].join(' '),
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A token from API_TOKENS (name:token:role).' } },
      schemas: withEventDiscriminator({ ...componentsOf(REQUEST_SCHEMAS, 'input'), ...componentsOf(REPLY_SCHEMAS, 'output') }),
    },
    paths: {
      '/v1/runs': {
        post: {
          summary: 'Submit a run',
          description: `The body is a project file: JSON, or YAML as text (application/yaml, text/plain). ${writeNote}`,
          parameters: [
            { name: 'queue_unserved', in: 'query', schema: { type: 'boolean', default: false }, description: 'accept a run whose providers no live provider-worker serves; it waits, and a provider_unserved event says so' },
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              description:
                'One per submission (e.g. a random UUID), kept per token: the same key with the same body again answers 202 with the first run, never a second; another body under the key is a 422. Send it to retry a submit whose answer was lost.',
              schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,255}$' },
            },
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: { oneOf: [ref('BuildProjectConfig'), ref('PanelProjectConfig'), ref('PanelProjectConfigByIdeaRef')] } },
              'application/yaml': { schema: { type: 'string', description: 'the same project file as YAML text' } },
            },
          },
          responses: {
            '202': { ...json('Queued; Location names the run.', 'SubmittedRun'), headers: location },
            '400': error('The project file is not valid (`issues` names each field), its idea_ref names a worksheet version that is not ready (idea_not_ready: every failing check in `issues`), the JSON is malformed, it nests too deep, the Idempotency-Key header is malformed, or no live provider-worker serves a provider it uses (`?queue_unserved=true` queues it anyway).'),
            '413': tooLarge,
            '415': error('The body is neither JSON nor YAML text: send application/json or application/yaml (text/yaml, application/x-yaml, text/plain).'),
            '422': error('The Idempotency-Key was first sent with another body (`run_id` is the run it made): send a new key.'),
            ...WRITE_ERRORS,
          },
        },
        get: {
          summary: 'List runs, newest first, each with its calls, tokens and cost',
          description:
            'A page of runs, newest first (created_at, then id, descending). The reply is an array; when more runs match, the `X-Next-Cursor` header holds the cursor of the next page and `Link` its URL (rel="next"). A cursor continues strictly after the last run of its page (keyset, not offset), so runs submitted in between are neither repeated nor make the next page skip any.',
          parameters: [
            { name: 'status', in: 'query', schema: { type: 'string', enum: [...RunStatus.options] } },
            { name: 'workflow', in: 'query', schema: { type: 'string', enum: Object.values(WORKFLOWS) } },
            {
              name: 'q',
              in: 'query',
              description: "text searched for in the project's name, its objective (a panel's idea) and the run id, case-insensitive; `%` and `_` match themselves",
              schema: { type: 'string', maxLength: 200 },
            },
            {
              name: 'from',
              in: 'query',
              description: 'runs created at or after this: an ISO date (its first instant, UTC) or a date-time with its zone',
              schema: { type: 'string', examples: ['2026-01-31', '2026-01-31T12:00:00Z'] },
            },
            {
              name: 'to',
              in: 'query',
              description: 'runs created at or before this: an ISO date (the whole day, UTC) or a date-time with its zone',
              schema: { type: 'string', examples: ['2026-01-31', '2026-01-31T12:00:00+02:00'] },
            },
            { name: 'cursor', in: 'query', description: 'continue after the page whose `X-Next-Cursor` this is (opaque)', schema: { type: 'string' } },
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } },
          ],
          responses: {
            '200': {
              ...json('Runs', 'RunList'),
              headers: {
                'X-Next-Cursor': { required: false, schema: { type: 'string' }, description: 'the next page\'s cursor (pass it as `?cursor=`); absent on the last page' },
                Link: { required: false, schema: { type: 'string' }, description: 'the next page\'s URL, `<…>; rel="next"`; absent on the last page' },
              },
            },
            '400': error('A query parameter is not valid (the message names it and the form it takes): a bad date in from or to, from later than to, a cursor this api did not give.'),
            ...AUTH_ERRORS,
          },
        },
      },
      ...ideaPaths(writeNote, tooLarge),
      ...experimentPaths(writeNote, tooLarge),
      ...evalPaths(writeNote, tooLarge),
      '/v1/providers': {
        get: {
          summary: 'The live provider-workers: per provider, who serves it, which key variables are set there, CLI versions, queue depth',
          responses: { '200': json('The provider registry', 'Providers'), ...AUTH_ERRORS },
        },
      },
      '/v1/me': {
        get: { summary: 'Who the presented token is: its name and role (read, write; open when the API has no tokens)', responses: { '200': json('The token', 'Me'), ...AUTH_ERRORS } },
      },
      '/v1/usage': {
        get: {
          summary: 'Spending by team and project since a time: calls finished, tokens, USD, and the calls in flight now, with the operator\'s caps across runs beside each row',
          description:
            "Calls count when they finish (completed or failed; every try counts; a fork's copies count nothing); `in_flight` is what calls queued or running hold now. Caps (`team_caps`, `project_caps`) are the operator policy's `budgets.teams` and `budgets.projects`, which the orchestrator checks before every call, across all runs of the team or project. A token that is not an admin sees its own team's rows only: asking for another team answers no rows.",
          parameters: [
            { name: 'team', in: 'query', description: 'only this team (a non-admin token: only its own)', schema: { type: 'string', maxLength: 200 } },
            { name: 'project', in: 'query', description: 'only this project (the `project:` a project file names)', schema: { type: 'string', maxLength: 200 } },
            {
              name: 'since',
              in: 'query',
              description: 'count calls finished at or after this: an ISO date (its first instant, UTC) or a date-time with its zone; default the start of today, UTC',
              schema: { type: 'string', examples: ['2026-01-31', '2026-01-31T12:00:00Z'] },
            },
          ],
          responses: {
            '200': json('Spending by team and project', 'UsageReport'),
            '400': error('A query parameter is not valid (the message names it and the form it takes): a bad date in since, an empty or too long team or project.'),
            ...AUTH_ERRORS,
          },
        },
      },
      '/v1/workflows': {
        get: {
          summary: 'The workflows this deployment runs: each one\'s stages and shape (stages, gates, loops and the caps that bound them)',
          description: 'From the workflow registry: what the run page draws as its stage graph.',
          responses: { '200': json('The workflows', 'WorkflowList'), ...AUTH_ERRORS },
        },
      },
      '/v1/audit/bias': {
        get: {
          summary: 'The bias audit across recorded runs: flags first, then per critic, per panel judge, and self-preference per judging role',
          description:
            "Read from the newest 2000 runs (of the project, when named; scope.truncated says when more matched). Per build critic (provider/model of the critic role): its ACCEPT / REVISE / REJECT counts and rates, and how many of its ACCEPTs were followed in the same run by a test run that did not pass (exit code not 0) or by a validator's or reviewer's verdict that was not ACCEPT; flagged never_revises (at least 5 verdicts, none REVISE or REJECT) and accepts_failures (at least 3 ACCEPTs followed by failing tests, at least half of its ACCEPTs). Per panel judge (provider/model and judge role): its roast scores (count, mean, range, histogram over 1–10), how many re-votes moved with the herd (the same nonzero move as 3 or more other judges of the panel), its drift between consecutive panels of the same idea; flagged herds (at least 5 re-votes, at least 60 % herd moves). Self-preference: each of critic, validator and reviewer's ACCEPT rate when the judged work's author was on its own provider against another; flagged when both sides hold at least 5 and the difference is 0.25 or more.",
          parameters: [{ name: 'project', in: 'query', description: "a project name: only that project's runs", schema: { type: 'string' } }],
          responses: { '200': json('The audit', 'BiasAudit'), '400': error('A query parameter is not valid (invalid_query): an empty project, project given twice, or a parameter other than project.'), ...AUTH_ERRORS },
        },
      },
      '/v1/examples': {
        get: {
          summary: 'The shipped example projects, each ready to post as it is',
          description: "From EXAMPLES_DIR (default ./examples), read at start; each replay cassette is written relative to the operator's cassette root that holds it (a relative cassette path is looked up under cassettes.roots). An example no root can serve is left out.",
          responses: { '200': json('The examples', 'ExampleList'), ...AUTH_ERRORS },
        },
      },
      '/v1/runs/{id}': {
        get: { summary: 'One run with its usage against its caps', parameters: [runId], responses: { '200': json('The run', 'RunDetail'), '404': error('No such run.'), ...AUTH_ERRORS } },
      },
      '/v1/runs/{id}/report': {
        get: {
          summary: "The run's report (Markdown)",
          parameters: [runId],
          responses: { '200': { description: 'The report', content: { 'text/markdown': { schema: { type: 'string' } } } }, '404': error('No such run.'), ...AUTH_ERRORS },
        },
      },
      '/v1/runs/{id}/verify': {
        get: {
          summary: "Recomputes the run's hash-chained record and says intact, or names the first event or call that does not match",
          description: [
            "Each event's hash is sha256(previous hash ‖ canonical JSON of {run_id, sequence, type, payload, created_at}); each finished call's record hash covers its messages, reply, usage and cost and rides in the event that records it.",
            '`kind`: `changed` (an event or a call differs from what was hashed), `missing` (a gap in the sequence, a head hash past the last event, a recorded call gone), `reordered` (an event hashes at another position), `signature` (the Ed25519 signature of the head at the terminal event, made with AUDIT_SIGNING_KEY, does not match the chain).',
            "The signature is checked with the public key it carries; `roundtable verify --file <export> --public-key <pem>` checks it against the operator's key. Events written before the chain existed are counted as `unchained`, not as tampering.",
          ].join(' '),
          parameters: [runId],
          responses: { '200': json('The verdict', 'RecordVerdict'), '404': error('No such run.'), ...AUTH_ERRORS },
        },
      },
      '/v1/runs/{id}/export': {
        get: {
          summary: "The run's record as one file: events and calls with their hashes, the report with its sha256, the head hash and signature",
          description: '`roundtable verify --file <it>` checks it offline, with the same code as /verify. `run` is the run as GET /v1/runs/{id} shows it, for reading; the chain covers the events and calls.',
          parameters: [runId],
          responses: { '200': json('The export (Content-Disposition: attachment)', 'RunExport'), '404': error('No such run.'), ...AUTH_ERRORS },
        },
      },
      '/v1/runs/{id}/records': {
        get: {
          summary: "What the run recorded, as its page shows it: a build's proposals, critiques, implementations, tests, reviews and synthesis; a panel's judges, debate, re-vote, moderator and appeal",
          description: "From the run's snapshot (runs.workflow_state), never from its workspace; the shape is chosen by `workflow`. A run that has not started yet has empty lists.",
          parameters: [runId],
          responses: { '200': json('The records', 'RunRecords'), '404': error('No such run.'), '409': error('The run is of a workflow this api cannot read.'), ...AUTH_ERRORS },
        },
      },
      '/v1/runs/{id}/diff': {
        get: {
          summary: "The run branch's whole diff (every round against the base commit)",
          description: 'The diff the test-runner stored with its last commit on the run branch (an artifacts row), never read from the workspace. Stored up to 1 MiB; a longer one ends with a line saying where it was cut.',
          parameters: [runId],
          responses: {
            '200': { description: 'A unified diff', content: { 'text/x-diff': { schema: { type: 'string' } } } },
            '404': error('No such run, or it applied no implementation to a git workspace (no_diff).'),
            '409': error('A panel run: it changes no files (diff_unavailable).'),
            ...AUTH_ERRORS,
          },
        },
      },
      '/v1/runs/{id}/bundle': {
        get: {
          summary: "A greenfield or copied run's branch as a git bundle (`git clone` it)",
          description: 'A run that cannot be merged (no original git repository) offers its branch instead: the bundle holds the whole branch, base commit included. Written by the test-runner once the run is done, stored in the database.',
          parameters: [runId],
          responses: {
            '200': { description: 'A git bundle', content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } },
            '404': error('No such run, or it has no bundle: not done yet, or on a git repository (its branch is there) (no_bundle).'),
            '409': error('A panel run: it changes no files (files_unavailable).'),
            ...AUTH_ERRORS,
          },
        },
      },
      '/v1/runs/{id}/patch': {
        get: {
          summary: "A greenfield or copied run's branch as one patch against its base (`git apply` it)",
          description: '`git diff --binary` of the base commit against the branch tip, for the original files of a copy (or an empty directory for a greenfield run).',
          parameters: [runId],
          responses: {
            '200': { description: 'A patch', content: { 'text/x-diff': { schema: { type: 'string' } } } },
            '404': error('No such run, or it has no patch (no_patch).'),
            '409': error('A panel run: it changes no files (files_unavailable).'),
            ...AUTH_ERRORS,
          },
        },
      },
      '/v1/runs/{id}/files': {
        get: {
          summary: 'A workspace file as the run last wrote it (read-only)',
          description:
            "The content an applied implementation wrote, from the run's records, never read from the workspace: only a path the run wrote can be answered. `implementations[].files[].path` in /records lists them.",
          parameters: [
            runId,
            {
              name: 'path',
              in: 'query',
              required: true,
              description: `relative to the workspace: not absolute, no \`..\` segment, no backslash, NUL or control character, not in .git, at most ${MAX_FILE_PATH_CHARS} characters`,
              schema: { type: 'string', minLength: 1, maxLength: MAX_FILE_PATH_CHARS },
              example: 'dd.py',
            },
          ],
          responses: {
            '200': { description: 'The file', content: { 'text/plain': { schema: { type: 'string' } } } },
            '400': error('The path is missing, given twice or not a relative workspace path (invalid_path; `issues` names `path`).'),
            '404': error('No such run; or the run never wrote that path (file_not_found), or deleted it after (file_deleted).'),
            '409': error('A panel run: it changes no files (files_unavailable).'),
            ...AUTH_ERRORS,
          },
        },
      },
      '/v1/runs/{id}/events': {
        get: {
          summary: "The run's events as Server-Sent Events",
          description: [
            'Replays the log after Last-Event-ID (or ?after=), then follows live. Each event is one frame: `id: <sequence>`, `event: <type>`,',
            '`data: <RunEvent as JSON>` (its `payload` typed by `type`); `: heartbeat` comments keep an idle stream open. Ends after a terminal event',
            "(or a finished panel's appeal_completed).",
            'A live-only event (debate_token_delta: a debate turn growing as its judge speaks) is in no log: it is sent only live, with the',
            'sequence and frame id of the stored event it follows (so Last-Event-ID never moves past the log), and its turn arrives whole as',
            'debate_message_published.',
          ].join(' '),
          parameters: [
            runId,
            { name: 'Last-Event-ID', in: 'header', description: 'resume after this sequence (wins over ?after=)', schema: { type: 'integer', minimum: 0 } },
            { name: 'after', in: 'query', description: 'resume after this sequence', schema: { type: 'integer', minimum: 0 } },
            {
              name: 'through',
              in: 'query',
              description: 'end: follow past run_completed (a resume, an appeal) to the end of the log, closing when the stream-end event is the last and no appeal is pending',
              schema: { type: 'string', enum: ['end'] },
            },
          ],
          responses: {
            '200': { description: 'An event stream; the schema is that of each data frame', content: { 'text/event-stream': { schema: ref('RunEvent') } } },
            '204': { description: 'Every event up to the end of the run (and of its appeal) was seen already: nothing more will come, do not reconnect.' },
            '400': error('Last-Event-ID or `after` is not a whole number from 0, or is beyond the run\'s last event (invalid_resume_point); or `through` is not end (invalid_query).'),
            '404': error('No such run.'),
            '503': error('The live feed (Redis) does not answer (event_stream_unavailable).'),
            ...AUTH_ERRORS,
          },
        },
      },
      '/v1/runs/{id}/cancel': {
        post: {
          summary: 'Cancel a run (it stops between steps)',
          description: writeNote,
          parameters: [runId],
          responses: { '202': { ...json('Cancel requested', 'ControlRequested'), headers: location }, '404': error('No such run.'), '409': error('The run has ended.'), ...WRITE_ERRORS },
        },
      },
      '/v1/runs/{id}/resume': {
        post: {
          summary: 'Resume a halted, needs_input or failed run',
          description: writeNote,
          parameters: [runId],
          requestBody: { required: false, content: { 'application/json': { schema: ref('ResumeRequest') } } },
          responses: { '202': { ...json('Resume requested', 'ControlRequested'), headers: location }, '400': error('The body is not valid.'), '413': tooLarge, '404': error('No such run.'), '409': error('The run cannot be resumed.'), ...WRITE_ERRORS },
        },
      },
      '/v1/runs/{id}/fork': {
        post: {
          summary: 'Run again from a stage of an ended run, with edited inputs (a fork)',
          description:
            `${writeNote} A new run of the original's workflow: \`edits\` (a part of a project file) is laid over the original's config and judged as a new submission; ` +
            "the calls the original made before `from` are copied (each names the call it copies, billed to neither run again) and the rest runs live. The fork's GET shows forked_from, the original's lists its forks.",
          parameters: [runId],
          requestBody: { required: true, content: { 'application/json': { schema: ref('ForkRequest') } } },
          responses: {
            '202': { ...json('The fork, queued', 'ForkedRun'), headers: location },
            '400': error('The body is not valid, the run made no call at that stage, or the forked config is refused (the field is named).'),
            '413': tooLarge,
            '404': error('No such run.'),
            '409': error('The run has not ended (run_not_ended), or its workflow is not forked: an experiment is run once (run_not_forkable).'),
            ...WRITE_ERRORS,
          },
        },
      },
      '/v1/runs/{id}/approvals': {
        post: {
          summary: 'Approve or refuse at the gate the run waits at (criteria, merge)',
          description: `${writeNote} Needs a token with the approve role; with the policy's approvals.four_eyes, not the token that submitted the run.`,
          parameters: [runId],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['gate', 'decision'],
                  additionalProperties: false,
                  properties: {
                    gate: { type: 'string', examples: ['criteria', 'merge'] },
                    decision: { type: 'string', enum: ['approve', 'reject'] },
                    note: { type: 'string', maxLength: 4000 },
                    edits: { type: 'object', description: 'criteria gate only: the criteria as approved', properties: { criteria: { type: 'array', items: { type: 'object', required: ['text'], properties: { id: { type: 'string' }, text: { type: 'string' } } } } } },
                  },
                },
              },
            },
          },
          responses: { '202': { description: 'The decision is on its way to the run (a run.approve job)', content: { 'application/json': { schema: { type: 'object' } } }, headers: location }, '400': error('The body is not valid (the field is named).'), '403': error('The token lacks the approve role, or four eyes refuses the submitter (four_eyes).'), '404': error('No such run.'), '409': error('The run waits at another gate, or at none.'), ...AUTH_ERRORS },
        },
      },
      '/v1/runs/{id}/answers': {
        post: {
          summary: 'Answer an open question of a run stopped as needs_input',
          description: `${writeNote} The answer enters the next prompt in an evidence block marked as a person's; once every open question is answered the run goes on.`,
          parameters: [runId],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { type: 'object', required: ['question_id', 'answer'], additionalProperties: false, properties: { question_id: { type: 'string', examples: ['Q1'] }, answer: { type: 'string', maxLength: 8000 } } } } },
          },
          responses: { '202': { description: 'The answer is on its way to the run (a run.answer job)', content: { 'application/json': { schema: { type: 'object' } } }, headers: location }, '400': error('The body is not valid (the field is named).'), '404': error('No such run or question.'), '409': error('The question is answered already (question_answered).'), ...WRITE_ERRORS },
        },
      },
      '/v1/runs/{id}/appeal': {
        post: {
          summary: 'Appeal a finished panel with new evidence',
          description: `${writeNote} evidence_ids cites entries of the ledger of the idea the run was submitted on (idea_ref); each enters the judges' prompts as "[E1] claim — source".`,
          parameters: [runId],
          requestBody: { required: true, content: { 'application/json': { schema: ref('AppealRequest') } } },
          responses: { '202': { ...json('Appeal requested', 'AppealRequested'), headers: location }, '400': error('The body is not valid, or evidence_ids names an entry the idea\'s ledger does not hold (or the run is on no idea).'), '413': tooLarge, '404': error('No such run.'), '409': error('The run cannot be appealed (appeal_not_allowed, appeal_used), or an earlier appeal still waits to be applied (appeal_pending).'), ...WRITE_ERRORS },
        },
      },
      '/v1/runs/{id}/calls': {
        get: {
          summary: "The run's agent calls (one per LLM request)",
          parameters: [
            runId,
            { name: 'role', in: 'query', description: "a build, a panel (judges and moderator) or an experiment role", schema: { type: 'string', enum: CALL_ROLES } },
            { name: 'stage', in: 'query', description: 'a build or a panel stage', schema: { type: 'string', enum: CALL_STAGES } },
            { name: 'failed', in: 'query', schema: { type: 'string', enum: ['true', 'false'] } },
          ],
          responses: { '200': json('Calls', 'CallList'), '400': error('A query parameter is not valid.'), '404': error('No such run.'), ...AUTH_ERRORS },
        },
      },
      '/v1/runs/{id}/calls/{callId}/playground': {
        post: {
          summary: 'Try the call again in the playground, with an edited prompt, model or provider',
          description: `${writeNote} A call of its own (its own row), never part of the run: not its usage, budget, events or report. The provider must be one of the run's; the operator's policy caps how many a run may have (playground.max_calls_per_run; 0 turns it off).`,
          parameters: [runId, callId],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  additionalProperties: false,
                  properties: {
                    messages: { type: 'array', items: { type: 'object', required: ['role', 'content'], properties: { role: { type: 'string', enum: ['system', 'user', 'assistant'] }, content: { type: 'string' } } } },
                    provider: { type: 'string' },
                    model: { type: 'string' },
                  },
                },
              },
            },
          },
          responses: { '202': json('The playground call, queued', 'PlaygroundCall'), '400': error('The body is not valid (the field is named).'), '403': error('A read token, or the playground is off (playground_off).'), '404': error('No such run or call.'), '409': error('The run has had its playground calls (playground_cap).'), ...AUTH_ERRORS },
        },
        get: {
          summary: "The call's playground tries, oldest first",
          parameters: [runId, callId],
          responses: { '200': json('Playground calls', 'PlaygroundCallList'), '404': error('No such run or call.'), ...AUTH_ERRORS },
        },
      },
      '/v1/runs/{id}/calls/{callId}': {
        get: {
          summary: 'One agent call: the exact prompt, the reply and its accounting',
          parameters: [runId, callId],
          responses: { '200': json('The call', 'CallDetail'), '404': error('No such run or call.'), ...AUTH_ERRORS },
        },
      },
      '/docs/openapi.json': {
        get: {
          summary: 'This document (Swagger UI renders it at /docs)',
          responses: { '200': { description: 'The OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object', properties: { openapi: { type: 'string' }, paths: { type: 'object' } }, required: ['openapi', 'paths'] } } } }, ...AUTH_ERRORS },
        },
      },
      '/': {
        get: {
          summary: 'The workbench (a single-page app; also at /runs, /runs/{id}, /runs/{id}/calls/{callId} and /new, its bundle under /assets/)',
          description: `Static files from WEB_ROOT (default dist/apps/web), served without a token: they hold no run data, and the page asks for a token to call /v1 with. Content-Security-Policy: ${WORKBENCH_CSP}.`,
          security: [],
          responses: {
            '200': { description: "The workbench's index.html", content: { 'text/html': { schema: { type: 'string' } } }, headers: { 'Content-Security-Policy': { schema: { type: 'string' }, description: WORKBENCH_CSP } } },
            '503': error('The workbench is not built on this api (workbench_not_built): run `node tools/build.mjs web`.'),
          },
        },
      },
      '/healthz': { get: { summary: 'Liveness', security: [], responses: { '200': json('The process serves', 'Health') } } },
      '/readyz': {
        get: { summary: 'Readiness: Postgres and Redis answer', security: [], responses: { '200': json('Ready', 'Ready'), '503': error('Not ready; the message names the failing dependency.') } },
      },
      '/metrics': {
        get: {
          summary: 'Prometheus metrics (any token)',
          responses: { '200': { description: 'Text exposition format', content: { 'text/plain': { schema: { type: 'string' } } } }, ...AUTH_ERRORS },
        },
      },
    },
  };
}
