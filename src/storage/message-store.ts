// Messages keyed [address, message_id], and their raw RFC 5322 sources keyed by message id alone:
// one delivery gives every recipient on the shard the same id, so the source is stored once and
// counted (raw_refs, with the first recipient: in a cluster one delivery's recipients share a slot,
// so the source travels with that slot), and the last message to go removes it (DESIGN §7). Sources of the layout
// before that (raw, [address, message_id]) are still read and removed. Message ids sort by arrival
// time, so an inbox's messages are one contiguous, time-ordered range. Ingest digests (DESIGN §8
// "Idempotent ingest") index an inbox's messages by what was received: message_digests holds
// [address, 'd', digest] → message_id and, to remove it with its message, [address, 'm', id] → digest.
import type { Database, RootDatabase } from 'lmdb';
import type { MessageRecord } from '../contract/model.js';
import { entryCount, openDb, prefixRange, type Key } from './keys.js';

/** The two kinds of key in message_digests, after the address. */
const BY_DIGEST = 'd';
const BY_MESSAGE = 'm';

/** How many messages share a raw source, and the inbox whose slot it belongs to. */
export interface SourceRefs {
  readonly copies: number;
  readonly inbox: string;
}

export class MessageStore {
  private readonly messages: Database<MessageRecord, Key>;
  private readonly sources: Database<Buffer, string>;
  /** A bare count in sources stored before sources had an owner inbox. */
  private readonly sourceRefs: Database<SourceRefs | number, string>;
  private readonly legacySources: Database<Buffer, Key>;
  private readonly digests: Database<string, Key>;

  constructor(root: RootDatabase) {
    this.messages = openDb<MessageRecord>(root, 'messages');
    this.sources = openDb<Buffer, string>(root, 'raw_shared', true);
    this.sourceRefs = openDb<SourceRefs | number, string>(root, 'raw_refs');
    this.legacySources = openDb<Buffer>(root, 'raw', true);
    this.digests = openDb<string>(root, 'message_digests');
  }

  get(address: string, id: string): MessageRecord | undefined {
    return this.messages.get([address, id]);
  }

  /** Inside a transaction: a message record (new, or changed). */
  put(message: MessageRecord): void {
    void this.messages.put([message.inbox, message.id], message);
  }

  /** The id of the inbox's message received with this ingest digest, if it still holds one. */
  byDigest(address: string, digest: string): string | undefined {
    return this.digests.get([address, BY_DIGEST, digest]);
  }

  /** Inside a transaction, with the message: the ingest digest it was received with. */
  putDigest(address: string, id: string, digest: string): void {
    void this.digests.put([address, BY_DIGEST, digest], id);
    void this.digests.put([address, BY_MESSAGE, id], digest);
  }

  /** Inside a transaction: the raw source that `copies` new messages of this id share. */
  putSource(id: string, raw: Uint8Array, copies: number, inbox: string): void {
    // The count first: the oplog finds the source's slot through it.
    void this.sourceRefs.put(id, { copies, inbox });
    void this.sources.put(id, Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
  }

  raw(address: string, id: string): Buffer | undefined {
    return this.sources.getBinary(id) ?? this.legacySources.getBinary([address, id]);
  }

  remove(address: string, id: string): void {
    void this.messages.remove([address, id]);
    this.releaseSource(address, id);
    const digest = this.digests.get([address, BY_MESSAGE, id]);
    if (digest === undefined) return;
    void this.digests.remove([address, BY_MESSAGE, id]);
    void this.digests.remove([address, BY_DIGEST, digest]);
  }

  /** Every message of an inbox and its share of their raw sources. */
  removeInbox(address: string): void {
    for (const key of this.messages.getKeys(prefixRange([address]))) {
      void this.messages.remove(key);
      this.releaseSource(address, (key as string[])[1]!);
    }
    for (const key of this.digests.getKeys(prefixRange([address]))) void this.digests.remove(key);
  }

  /** Inside a transaction: one message no longer needs its source; the last one removes it. */
  private releaseSource(address: string, id: string): void {
    void this.legacySources.remove([address, id]);
    const refs = this.sourceRefs.get(id);
    if (refs === undefined) return;
    const copies = typeof refs === 'number' ? refs : refs.copies;
    if (copies > 1) {
      void this.sourceRefs.put(id, typeof refs === 'number' ? copies - 1 : { ...refs, copies: copies - 1 });
      return;
    }
    // The source before its count: the oplog finds the source's slot through the count's inbox.
    void this.sources.remove(id);
    void this.sourceRefs.remove(id);
  }

  /** Stored raw sources (shared ones count once). */
  sourceCount(): number {
    return entryCount(this.sources) + entryCount(this.legacySources);
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
