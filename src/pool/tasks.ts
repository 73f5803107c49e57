// The tasks the piscina pool runs, off the event loops that hold connections.
import { attachmentOf, parseMail } from '../mail/parse-mail.js';

export function parse(raw: Uint8Array) {
  return parseMail(raw);
}

export type BatchOutcome = { ok: true; message: Awaited<ReturnType<typeof parseMail>> } | { ok: false; error: string };

/** Several small mails in one task; each succeeds or fails on its own. */
export function parseBatch(raws: Uint8Array[]): Promise<BatchOutcome[]> {
  return Promise.all(raws.map(async (raw): Promise<BatchOutcome> => {
    try {
      return { ok: true, message: await parseMail(raw) };
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
  }));
}

export function attachment({ raw, index }: { raw: Uint8Array; index: number }) {
  return attachmentOf(raw, index);
}

/** Nothing: answered once a thread has loaded this module (see WorkPool.run). */
export function noop(): null {
  return null;
}
