// Each account's API key as the webhook sender last opened it (deliveries are signed with it,
// SEED.md), with the sealed bytes it was opened from: opened once per sealed value rather than per
// delivery. The sealed bytes are still read each time, so a rotated key signs from its first
// delivery on.
import type { Sealer } from '../security/sealer.js';

const OPENED_KEYS_MAX = 10_000;

export class OpenedKeys {
  private readonly opened = new Map<string, { sealed: Buffer; key: string }>();

  constructor(private readonly sealer: Sealer) {}

  /** The key sealed as `sealed` (the store's current bytes), or undefined when there is none. */
  open(accountId: string, sealed: Uint8Array | undefined): string | undefined {
    if (!sealed) return undefined;
    const known = this.opened.get(accountId);
    if (known && Buffer.compare(known.sealed, sealed) === 0) return known.key;
    const key = this.sealer.open(sealed);
    if (this.opened.size >= OPENED_KEYS_MAX) this.opened.clear();
    this.opened.set(accountId, { sealed: Buffer.from(sealed), key });
    return key;
  }
}
