// floor-smtp: smtp-server with mailparser parsing every mail and storing nothing, driven by the
// same SMTP generator, connections and mails as smtp-ingest: the most this machine ingests over
// loopback SMTP with our SMTP and MIME libraries (issue 18's ceiling for smtp-ingest).
import { startFloorServer } from '../lib/floor-server.js';
import { Generator } from '../lib/generator.js';
import { freePort } from '../lib/net-util.js';
import { stop } from '../lib/proc.js';
import type { Scenario } from '../lib/scenario.js';
import { countedSmtpLoad } from '../lib/smtp-scenario.js';

interface Params {
  connections: number;
  mails: number;
  /** Not counted, as in smtp-ingest. */
  warmupMails: number;
}

export const floorSmtp: Scenario<Params> = {
  name: 'floor-smtp',
  title: 'smtp-server + mailparser, nothing stored: mails/s (machine floor for SMTP ingest)',
  full: { connections: 10, mails: 5000, warmupMails: 8000 },
  quick: { connections: 10, mails: 1000, warmupMails: 300 },
  timeLimitS: (quick) => (quick ? 30 : 120),
  async run(ctx, p) {
    const port = await freePort();
    const server = await startFloorServer('floor-smtp', 'smtp', String(port));
    const gen = await Generator.start('smtp-sender');
    try {
      const recipients = Array.from({ length: 100 }, (_, i) => `r${i}@floor.test`);
      const load = { host: '127.0.0.1', port, connections: p.connections, kind: 'small' as const, recipients };
      const { fields } = await countedSmtpLoad(gen, () => [{ name: 'floor-smtp', pid: server.pid }], { load, mails: p.mails, warmupMails: p.warmupMails, tag: 'floor', timeLimitS: this.timeLimitS(ctx.quick) });
      return fields;
    } finally {
      await gen.stop();
      await stop(server);
    }
  },
};
