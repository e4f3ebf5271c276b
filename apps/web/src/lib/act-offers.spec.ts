import { RESUMABLE_BY_WORKFLOW } from '../workflows/resumable-statuses';
import { actStatusOf, offersAppeal, offersCancel, offersResume, runNotFound } from './act-offers';

const buildResumable = new Set<string>(RESUMABLE_BY_WORKFLOW.build);
const panelResumable = new Set<string>(RESUMABLE_BY_WORKFLOW.panel);

describe('the Act list: what the run page offers (issue 22)', () => {
  it('offers Resume on halted, needs_input and failed builds only: never on a cancelled or done run', () => {
    for (const s of ['halted', 'needs_input', 'failed']) expect(offersResume(buildResumable, s)).toBe(true);
    for (const s of ['cancelled', 'done', 'running', 'queued', 'awaiting_approval', 'unknown']) expect(offersResume(buildResumable, s)).toBe(false);
    expect(offersResume(panelResumable, 'cancelled')).toBe(false);
    expect(offersResume(null, 'halted')).toBe(false);
  });

  it('offers Cancel only on a run not ended, and never on a status no one has said (an unknown run)', () => {
    for (const s of ['queued', 'running', 'awaiting_approval']) expect(offersCancel(s)).toBe(true);
    for (const s of ['unknown', 'done', 'halted', 'cancelled', 'failed', 'needs_input']) expect(offersCancel(s)).toBe(false);
  });

  it('takes the stream’s status once it has one, the detail’s before', () => {
    expect(actStatusOf('unknown', 'cancelled')).toBe('cancelled');
    expect(actStatusOf('unknown', null)).toBe('unknown');
    expect(actStatusOf('halted', 'running')).toBe('halted');
  });

  it('hides the appeal form once the run’s one appeal was used, and keeps it after a refused one', () => {
    expect(offersAppeal('done', { appealsStarted: 0, detailAppeal: null })).toBe(true);
    expect(offersAppeal('done', { appealsStarted: 1, detailAppeal: null })).toBe(false);
    expect(offersAppeal('done', { appealsStarted: 0, detailAppeal: { status: 'completed', judges: ['vc'] } })).toBe(false);
    // A refused appeal never started: the run still has it.
    expect(offersAppeal('done', { appealsStarted: 0, detailAppeal: undefined })).toBe(true);
    expect(offersAppeal('halted', { appealsStarted: 0, detailAppeal: null })).toBe(false);
  });

  it('says not found with the api’s 404 message, from the detail or the stream', () => {
    expect(runNotFound({ status: 404, message: 'no run r9' }, null)).toBe('no run r9');
    expect(runNotFound(null, { status: 404, message: 'no run r9' })).toBe('no run r9');
    expect(runNotFound({ status: 500, message: 'boom' }, { status: 403, message: 'no' })).toBeNull();
    expect(runNotFound(null, null)).toBeNull();
  });
});
