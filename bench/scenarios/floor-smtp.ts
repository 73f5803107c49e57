// floor-smtp: smtp-server with mailparser parsing every mail and storing nothing, driven by the
// same SMTP generator, connections and mails as smtp-ingest: the most this machine ingests over
// loopback SMTP with our SMTP and MIME libraries (issue 18's ceiling for smtp-ingest).
// floor-smtp-shard: the same mails along the path DESIGN §1 fixes for ingest, with nothing of
// Mailcue's own work on it: parsed in a piscina pool, sent over Mailcue's front→shard channel to a
// shard thread that puts the raw bytes into LMDB, answered 250 once that commit is durable. It then
// sends as wake-latency does (2 connections, one mail at a time each): `wake_pattern`.
import { startFloorServer } from '../lib/floor-server.js';
import { Generator } from '../lib/generator.js';
import { freePort } from '../lib/net-util.js';
import { stop } from '../lib/proc.js';
import type { Scenario } from '../lib/scenario.js';
import type { SmtpLoadResult } from '../lib/smtp-client.js';
import { countedSmtpLoad } from '../lib/smtp-scenario.js';

interface Params {
  connections: number;
  mails: number;
  /** Not counted, as in smtp-ingest. */
  warmupMails: number;
}

function smtpFloor(name: string, kind: 'smtp' | 'smtp-shard', title: string): Scenario<Params> {
  return {
    name,
    title,
    full: { connections: 10, mails: 5000, warmupMails: 8000 },
    quick: { connections: 10, mails: 1000, warmupMails: 300 },
    timeLimitS: (quick) => (quick ? 30 : 120),
    async run(ctx, p) {
      const port = await freePort();
      const server = await startFloorServer(name, kind, kind === 'smtp' ? String(port) : `${port},${ctx.tmp}/${name}`);
      const gen = await Generator.start('smtp-sender');
      try {
        const recipients = Array.from({ length: 100 }, (_, i) => `r${i}@floor.test`);
        const load = { host: '127.0.0.1', port, connections: p.connections, kind: 'small' as const, recipients };
        const { fields } = await countedSmtpLoad(gen, () => [{ name, pid: server.pid }], { load, mails: p.mails, warmupMails: p.warmupMails, tag: 'floor', timeLimitS: this.timeLimitS(ctx.quick) });
        if (kind === 'smtp') return fields;
        // wake-latency's sending pattern (2 connections, each mail after the last one's 250): the
        // end of DATA → 250 here is when a parked waiter could be answered at the earliest.
        const wake = await gen.call<SmtpLoadResult>('smtpLoad', { ...load, connections: 2, total: ctx.quick ? 200 : 1000, tag: 'floorwake', timeLimitMs: 30_000, fromDataEnd: true }, 45_000);
        if (wake.timed_out || wake.accepted < wake.sent) throw new Error(`wake pattern: ${wake.accepted} of ${wake.sent} accepted${wake.timed_out ? ', timed out' : ''}`);
        return { ...fields, wake_pattern: { ops_per_s: wake.ops_per_s, ...wake.latency } };
      } finally {
        await gen.stop();
        await stop(server);
      }
    },
  };
}

export const floorSmtp = smtpFloor('floor-smtp', 'smtp', 'smtp-server + mailparser, nothing stored: mails/s (machine floor for SMTP ingest)');
export const floorSmtpShard = smtpFloor('floor-smtp-shard', 'smtp-shard', 'floor-smtp through the pool and the shard channel to a durable put: mails/s (floor of the architecture)');
