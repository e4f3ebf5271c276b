/**
 * Resident memory of processes, from /proc/<pid>/status: VmRSS (now) sampled on a timer for a
 * phase's peak, and VmHWM (the kernel's own high-water mark since the process started, which
 * also holds every earlier phase). Linux only; a process that has exited reads as null.
 */
import { readFileSync } from 'node:fs';

function statusKb(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number | null {
  if (!pid) return null;
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

export const rssMb = (pid: number | undefined): number | null => {
  const kb = statusKb(pid, 'VmRSS');
  return kb === null ? null : kb / 1024;
};
export const highWaterMb = (pid: number | undefined): number | null => {
  const kb = statusKb(pid, 'VmHWM');
  return kb === null ? null : kb / 1024;
};

export interface RssPeaks {
  /** Highest VmRSS sampled per process name, MB. */
  peakMb: Map<string, number>;
  /** VmRSS per process name at the first sample, MB. */
  startMb: Map<string, number>;
  samples: number;
}

/** Samples VmRSS of every named process every `everyMs` until `stop()`; the peaks are the samples' maximum. */
export function sampleRss(pids: Record<string, number | undefined>, everyMs = 100): { stop: () => RssPeaks } {
  const peaks: RssPeaks = { peakMb: new Map(), startMb: new Map(), samples: 0 };
  const sample = () => {
    peaks.samples++;
    for (const [name, pid] of Object.entries(pids)) {
      const mb = rssMb(pid);
      if (mb === null) continue;
      if (!peaks.startMb.has(name)) peaks.startMb.set(name, mb);
      peaks.peakMb.set(name, Math.max(peaks.peakMb.get(name) ?? 0, mb));
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return peaks;
    },
  };
}
