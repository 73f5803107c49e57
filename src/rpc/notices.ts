// The front's ear on every shard it routes accounts to: one Notices stream per shard (DESIGN §7),
// opened the first time the front needs it and reopened when it breaks. While a shard's stream is
// down its notices could be missed, so `listening(shard)` is false and the front trusts nothing it
// cached about that shard's accounts; `onGap` tells it to drop them.
import type { AccountNotice } from '../contract/results.js';
import { CHANNEL_OPTIONS, grpc, ShardService } from './proto.js';
import { channelCredentials, channelOptions, type TlsMaterial } from './tls.js';

const REOPEN_MS = 250;

export type ShardId = number | string;

interface Ear {
  readonly client: grpc.Client;
  call: grpc.ClientReadableStream<AccountNotice> | null;
  up: boolean;
  timer: NodeJS.Timeout | null;
}

export class NoticeListener {
  private readonly ears = new Map<ShardId, Ear>();
  private closed = false;

  constructor(
    private readonly onNotice: (notice: AccountNotice) => void,
    private readonly onGap: (shard: ShardId) => void,
    private readonly tls: TlsMaterial | null = null,
  ) {}

  /** Starts listening to a shard, if not yet; answers whether its stream is up (nothing missed). */
  ensure(shard: ShardId, target: string): boolean {
    const ear = this.ears.get(shard);
    if (ear) return ear.up;
    if (this.closed) return false;
    const client = new ShardService(target, channelCredentials(this.tls), { ...CHANNEL_OPTIONS, ...channelOptions(this.tls) });
    const fresh: Ear = { client, call: null, up: false, timer: null };
    this.ears.set(shard, fresh);
    this.open(shard, fresh);
    return false;
  }

  listening(shard: ShardId): boolean {
    return this.ears.get(shard)?.up ?? false;
  }

  private open(shard: ShardId, ear: Ear): void {
    if (this.closed) return;
    const call = (ear.client as unknown as { Notices(req: object): grpc.ClientReadableStream<AccountNotice> }).Notices({});
    ear.call = call;
    // The shard sends its headers once it has registered the stream: from then on nothing is missed.
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
