// What a front thread's HTTP tier needs of its sibling threads (MAILCUE_FRONT_THREADS), apart from
// how front-threads.ts provides it: the leaf that sessions and the HTTP tier import.
import type { SessionStream } from './mcp/session-stream.js';
import type { AuthorizeWindow } from './oauth/flow-routes.js';

/** What a front thread's HTTP tier needs of its siblings. */
export interface FrontThreadLink {
  /** This thread, as a holder of legacy SSE streams. */
  readonly holder: string;
  /** The sibling thread a holder names, or null (this thread, or another process). */
  siblingOf(holder: string | undefined): number | null;
  /** A legacy SSE session's stream that a sibling thread holds. */
  siblingStream(thread: number, sessionId: string): SessionStream;
  /** Frames for a stream this thread holds, sent by a sibling. */
  onFrame(handler: (sessionId: string, json: string) => void): void;
  readonly authorizeWindow: AuthorizeWindow;
}
