// Messages and their raw RFC 5322 sources, both keyed [address, message_id]. Message ids sort by
// arrival time, so an inbox's messages are one contiguous, time-ordered range.
import type { Database, RootDatabase } from 'lmdb';
import type { MessageRecord } from '../contract/model.js';
import { entryCount, openDb, prefixRange, type Key } from './keys.js';

export class MessageStore {
  private readonly messages: Database<MessageRecord, Key>;
  private readonly sources: Database<Buffer, Key>;

  constructor(root: RootDatabase) {
    this.messages = openDb<MessageRecord>(root, 'messages');
    this.sources = openDb<Buffer>(root, 'raw', true);
  }

  get(address: string, id: string): MessageRecord | undefined {
    return this.messages.get([address, id]);
  }

  /** Inside a transaction: the message and, when given, its raw source. */
  put(message: MessageRecord, raw?: Uint8Array): void {
    void this.messages.put([message.inbox, message.id], message);
    if (raw) void this.sources.put([message.inbox, message.id], Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
  }

  raw(address: string, id: string): Buffer | undefined {
    return this.sources.getBinary([address, id]);
  }

  remove(address: string, id: string): void {
    void this.messages.remove([address, id]);
    void this.sources.remove([address, id]);
  }

  /** Every message of an inbox and its raw source. */
  removeInbox(address: string): void {
    for (const key of this.messages.getKeys(prefixRange([address]))) {
      void this.messages.remove(key);
      void this.sources.remove(key);
    }
  }

  /** The inbox's messages, newest first; with `beforeId`, only those older than it (paging). */
  *newestFirst(address: string, beforeId: string | null = null): Generator<MessageRecord> {
    const { start, end } = prefixRange([address]);
    for (const { key, value } of this.messages.getRange({ start: beforeId ? [address, beforeId] : end, end: start, reverse: true })) {
      if ((key as string[])[1] !== beforeId) yield value;
    }
  }

  /** The inbox's messages newer than `sinceId`, oldest first. */
  *after(address: string, sinceId: string): Generator<MessageRecord> {
    const { end } = prefixRange([address]);
    for (const { key, value } of this.messages.getRange({ start: [address, sinceId], end })) {
      if ((key as string[])[1] !== sinceId) yield value;
    }
  }

  count(): number {
    return entryCount(this.messages);
  }
}
