// Pool threads run below the event loops that hold connections (issue 33, DESIGN §7 "Shared
// workers are fair"). A hostile mail keeps a parse thread busy for up to its time bound; on a
// machine with few cores that thread otherwise takes its equal share of a core from the front's
// and the shards' loops, and every tenant's SMTP answers and reads wait behind it. At nice +10 the
// kernel runs a pool thread when a loop has nothing to do, so the same work gets done in the gaps.
import { setPriority } from 'node:os';

/** The niceness of a pool thread (0 is the default; 19 the lowest priority). */
export const POOL_THREAD_NICENESS = 10;

/**
 * Lowers the calling thread's priority. On Linux the nice value belongs to each thread, and
 * setpriority with pid 0 names the caller, so this changes a worker thread alone. Lowering needs
 * no privilege; where the system refuses it, the thread keeps its priority.
 */
export function lowerThisThreadPriority(): void {
  try {
    setPriority(0, POOL_THREAD_NICENESS);
  } catch {
    // A platform where niceness is per process (or not allowed): leave it.
  }
}
