// hostile-ingest (issue 33, DESIGN §7 "Shared workers are fair"): one tenant sends ordinary tagged
// verification mail, one at a time, while another tenant sends every hostile shape of
// test/helpers/hostile-mail.ts (quadratic-bait HTML, deep MIME, huge headers, …) over its own
// connections. Each normal mail is timed from the end of DATA to its 250, and from the 250 to the
// moment GET …/messages shows it parsed (its code extracted). The same normal mails run first
// without the hostile sender: the figures are the ratios of the two p99s (target: within 1.5×).
import { HOSTILE_SHAPES } from '../../test/helpers/hostile-mail.js';
import { Mailcue } from '../lib/mailcue.js';
import { otpFor, smallMail, type Mail } from '../lib/mails.js';
import { jsonRequest } from '../lib/net-util.js';
import { sleep } from '../lib/proc.js';
import { ratio } from '../lib/report.js';
import { cores, foreignCores, measure, type Scenario } from '../lib/scenario.js';
import { SmtpConnection } from '../lib/smtp-client.js';
import { percentiles, round, type Percentiles } from '../lib/stats.js';

interface Params {
  /** Normal mails per phase (without, then with the hostile sender). */
  mails: number;
  /** Hostile connections sending at once. */
  hostileConnections: number;
  /** Longest a normal mail may take to show up before the phase fails. */
  visibleWithinMs: number;
}

interface Phase {
  accepted: Percentiles;
  visible: Percentiles;
  /** Normal mails shown without their code (stored unparsed): must be 0. */
  unparsed: number;
}

/** A raw message as a DATA payload: dot-stuffed, ending with CRLF.CRLF. */
function asData(from: string, to: string, raw: Buffer): Mail {
  return { from, to, data: Buffer.from(`${raw.toString('latin1').replace(/\r\n\./g, '\r\n..')}.\r\n`, 'latin1') };
}

/** `n` normal mails one after another; each timed to its 250 and to its parsed copy in the API. */
async function normalPhase(mc: Mailcue, key: string, inbox: string, tag: string, n: number, visibleWithinMs: number): Promise<Phase> {
  const accepted: number[] = [];
  const visible: number[] = [];
  let unparsed = 0;
  const conn = await SmtpConnection.open('127.0.0.1', mc.smtpPort);
  const latest = `/v1/inboxes/${encodeURIComponent(inbox)}/messages?limit=1`;
  try {
    for (let i = 0; i < n; i++) {
      const seq = i + 1;
      let dataEnd = 0;
      const reply = await conn.send(smallMail(inbox, `${tag}-${seq}`, seq), (t) => (dataEnd = t));
      const at250 = performance.now();
      if (reply.code !== 250) throw new Error(`normal mail ${seq}: ${reply.code} ${reply.text}`);
      accepted.push(at250 - dataEnd);
      for (const until = at250 + visibleWithinMs; ;) {
        const res = await jsonRequest('GET', `${mc.base}${latest}`, { token: key });
        const newest = (res.body.data as { subject: string; otp: string | null }[] | undefined)?.[0];
        if (newest?.subject === `Your code ${tag}-${seq}`) {
          visible.push(performance.now() - at250);
          if (newest.otp !== otpFor(seq)) unparsed++;
          break;
        }
        if (performance.now() > until) throw new Error(`normal mail ${seq} not visible within ${visibleWithinMs} ms`);
        await sleep(2);
      }
    }
  } finally {
    conn.close();
  }
  return { accepted: percentiles(accepted), visible: percentiles(visible), unparsed };
}

export const hostileIngest: Scenario<Params> = {
  name: 'hostile-ingest',
  title: 'Normal tagged mail from one tenant while another sends every hostile shape: 250 and visibility p99 against the same mail alone',
  full: { mails: 200, hostileConnections: 2, visibleWithinMs: 30_000 },
  quick: { mails: 40, hostileConnections: 1, visibleWithinMs: 30_000 },
  timeLimitS: (quick) => (quick ? 180 : 600),
  async run(ctx, p) {
    const mc = await Mailcue.start({ nodeArgs: process.env.BENCH_SERVICE_NODE_ARGS?.split(' ').filter(Boolean) });
    try {
      const normalKey = await mc.createAccount();
      const hostileKey = await mc.createAccount();
      const [normal] = await mc.createInboxes(normalKey, 'normal', 1);
      const [target] = await mc.createInboxes(hostileKey, 'target', 1);
      ctx.log(`hostile-ingest: ${p.mails} normal mails alone`);
      const alone = await normalPhase(mc, normalKey, normal!, 'alone', p.mails, p.visibleWithinMs);

      const shapes = HOSTILE_SHAPES.map((s) => ({ name: s.name, mail: asData('attacker@hostile.bench.test', target!, s.build('attacker@hostile.bench.test', target!)) }));
      let stop = false;
      const hostileReplies = new Map<number, number>();
      let hostileSent = 0;
      let hostileBytes = 0;
      const hostile = Array.from({ length: p.hostileConnections }, async (_, c) => {
        let conn = await SmtpConnection.open('127.0.0.1', mc.smtpPort);
        // Bounded: at most 50 rounds of every shape, and it stops when the normal phase ends.
        for (let n = c; !stop && n < shapes.length * 50; n += p.hostileConnections) {
          const shape = shapes[n % shapes.length]!;
          const reply = await conn.send(shape.mail).catch(() => ({ code: 0, text: 'connection lost' }));
          hostileReplies.set(reply.code, (hostileReplies.get(reply.code) ?? 0) + 1);
          hostileSent++;
          hostileBytes += shape.mail.data.length;
          if (reply.code === 0 || reply.code === 421) {
            conn.destroy();
            conn = await SmtpConnection.open('127.0.0.1', mc.smtpPort);
          }
        }
        conn.close();
      });
      // The hostile sender gets going first (its first mails are in the pool) before the normal mails start.
      await sleep(500);
      ctx.log(`hostile-ingest: ${p.mails} normal mails beside ${p.hostileConnections} hostile connection(s)`);
      const m = await measure(() => mc.pids, () => normalPhase(mc, normalKey, normal!, 'beside', p.mails, p.visibleWithinMs));
      stop = true;
      await Promise.all(hostile);
      const beside = m.value;
      return {
        ops: p.mails, duration_s: m.wall_s, ops_per_s: round(p.mails / m.wall_s, 1), ...beside.visible, peak_rss_mb: m.peak_rss_mb,
        client_cpu_share: null, generator: 'raw-socket SMTP (node, one process): 1 normal connection + hostile connections',
        server_cpu_cores: cores(m.server_cpu_s, m.wall_s), foreign_cpu_cores: foreignCores(m),
        accepted_p99_ratio: ratio(beside.accepted.p99_ms, alone.accepted.p99_ms),
        visible_p99_ratio: ratio(beside.visible.p99_ms, alone.visible.p99_ms),
        alone: { accepted: alone.accepted, visible: alone.visible },
        beside: { accepted: beside.accepted, visible: beside.visible },
        unparsed: alone.unparsed + beside.unparsed,
        hostile_mails: hostileSent, hostile_mib: round(hostileBytes / 1048576, 1), hostile_replies: Object.fromEntries(hostileReplies),
      };
    } finally {
      await mc.stop();
    }
  },
};
