// The front's ear on every shard: one Notices stream per shard (DESIGN §7), reopened when it breaks.
// While a shard's stream is down its notices could be missed, so `listening(shard)` is false and
// the front trusts nothing it cached about that shard's accounts; `onGap` tells it to drop them.
import type { AccountNotice } from '../contract/results.js';
import type { ShardAddress } from '../config/config.js';
import { CHANNEL_OPTIONS, grpc, ShardService } from './proto.js';

const REOPEN_MS = 250;

interface Ear {
  readonly client: grpc.Client;
  call: grpc.ClientReadableStream<AccountNotice> | null;
  up: boolean;
  timer: NodeJS.Timeout | null;
}

export class NoticeListener {
  private readonly ears = new Map<number, Ear>();
  private closed = false;

  constructor(
    shards: readonly ShardAddress[],
    private readonly onNotice: (notice: AccountNotice) => void,
    private readonly onGap: (shard: number) => void,
  ) {
    for (const s of shards) {
      const ear: Ear = { client: new ShardService(s.target, grpc.credentials.createInsecure(), CHANNEL_OPTIONS), call: null, up: false, timer: null };
      this.ears.set(s.id, ear);
      this.open(s.id, ear);
    }
  }

  listening(shard: number): boolean {
    return this.ears.get(shard)?.up ?? false;
  }

  private open(shard: number, ear: Ear): void {
    if (this.closed) return;
    const call = (ear.client as unknown as { Notices(req: object): grpc.ClientReadableStream<AccountNotice> }).Notices({});
    ear.call = call;
    // The shard sends its headers as soon as it has registered the stream: from then on, nothing is missed.
    call.on('metadata', () => {
      if (ear.call === call) ear.up = true;
    });
    call.on('data', (notice: AccountNotice) => this.onNotice(notice));
    let gone = false;
    const broken = () => {
      if (gone) return;
      gone = true;
      if (ear.call !== call) return;
      ear.up = false;
      ear.call = null;
      this.onGap(shard);
      if (!this.closed) ear.timer = setTimeout(() => this.open(shard, ear), REOPEN_MS);
    };
    call.on('error', broken);
    call.on('end', broken);
  }

  close(): void {
    this.closed = true;
    for (const ear of this.ears.values()) {
      if (ear.timer) clearTimeout(ear.timer);
      ear.up = false;
      ear.call?.cancel();
      ear.client.close();
    }
  }
}
