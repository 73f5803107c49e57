// A lean raw-socket SMTP sender: EHLO once per connection, then per mail MAIL/RCPT/DATA written in
// one packet when the server offers PIPELINING (RFC 2920), the prebuilt payload, and the 250.
// nodemailer builds and encodes each message on the client and saturates a core near 2k mails/s
// here; this sender only copies prebuilt buffers.
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { buildMail, type Mail, type MailKind } from './mails.js';
import { round, Samples, type Percentiles } from './stats.js';

export interface Reply {
  code: number;
  text: string;
}

export class SmtpConnection {
  private buf = '';
  private lines: string[] = [];
  private readonly ready: Reply[] = [];
  private readonly waiting: { resolve: (r: Reply) => void; reject: (e: Error) => void }[] = [];
  private closedWith: Error | null = null;
  pipelining = false;

  private constructor(private readonly socket: net.Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    const fail = (err: Error) => {
      this.closedWith ??= err;
      for (const w of this.waiting.splice(0)) w.reject(this.closedWith);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('SMTP connection closed')));
  }

  /** Connects, reads the banner and says EHLO. */
  static async open(host: string, port: number, localAddress?: string): Promise<SmtpConnection> {
    const socket = net.connect({ host, port, localAddress });
    const conn = new SmtpConnection(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const banner = await conn.next();
    if (banner.code !== 220) throw new Error(`SMTP banner: ${banner.code} ${banner.text}`);
    socket.write('EHLO bench.mailcue.test\r\n');
    const ehlo = await conn.next();
    if (ehlo.code !== 250) throw new Error(`EHLO: ${ehlo.code} ${ehlo.text}`);
    conn.pipelining = /\bPIPELINING\b/i.test(ehlo.text);
    return conn;
  }

  private onData(chunk: Buffer): void {
    this.buf += chunk.toString('latin1');
    let i: number;
    while ((i = this.buf.indexOf('\r\n')) >= 0) {
      const line = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 2);
      this.lines.push(line);
      if (line.charAt(3) !== '-') {
        const reply = { code: Number(line.slice(0, 3)), text: this.lines.join('\n') };
        this.lines = [];
        const w = this.waiting.shift();
        if (w) w.resolve(reply);
        else this.ready.push(reply);
      }
    }
  }

  next(): Promise<Reply> {
    const r = this.ready.shift();
    if (r) return Promise.resolve(r);
    if (this.closedWith) return Promise.reject(this.closedWith);
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /**
   * Sends one mail; `onDataEnd` is called right after the final CRLF.CRLF is handed to the kernel.
   * Resolves with the reply to the data (250 on success) or the first refusal.
   */
  async send(mail: Mail, onDataEnd?: (t: number) => void): Promise<Reply> {
    const envelope = [`MAIL FROM:<${mail.from}>\r\n`, `RCPT TO:<${mail.to}>\r\n`, 'DATA\r\n'];
    let replies: Reply[];
    if (this.pipelining) {
      this.socket.write(envelope.join(''));
      replies = [await this.next(), await this.next(), await this.next()];
    } else {
      replies = [];
      for (const cmd of envelope) {
        this.socket.write(cmd);
        const r = await this.next();
        replies.push(r);
        if (r.code >= 400) break;
      }
    }
    const refused = replies.find((r) => r.code >= 400);
    const dataReply = replies[2];
    if (!dataReply || dataReply.code !== 354) {
      this.socket.write('RSET\r\n');
      await this.next();
      return refused ?? dataReply ?? { code: 0, text: 'no reply' };
    }
    this.socket.write(mail.data);
    onDataEnd?.(performance.now());
    const end = await this.next();
    if (refused && end.code < 400) return refused;
    return end;
  }

  close(): void {
    if (this.closedWith) return;
    this.socket.end('QUIT\r\n');
    this.socket.destroySoon();
  }

  destroy(): void {
    this.socket.destroy();
  }
}

export interface SmtpLoadParams {
  host: string;
  port: number;
  connections: number;
  total: number;
  kind: MailKind;
  recipients: string[];
  /** Subjects and Message-IDs carry `${tag}-${i}`, so each mail can be found again. */
  tag: string;
  timeLimitMs: number;
  /** Latency from the end of DATA (the message's last byte written) instead of the envelope's write. */
  fromDataEnd?: boolean;
}

export interface SmtpLoadResult {
  sent: number;
  accepted: number;
  refused: Record<string, number>;
  duration_s: number;
  ops_per_s: number;
  latency: Percentiles;
  bytes_per_mail: number;
  timed_out: boolean;
}

/** `connections` connections send `total` prebuilt mails round-robin over `recipients`; rate = 250s / time. */
export async function runSmtpLoad(p: SmtpLoadParams): Promise<SmtpLoadResult> {
  const mails = Array.from({ length: p.total }, (_, i) => buildMail(p.kind, p.recipients[i % p.recipients.length]!, `${p.tag}-${i}`, i));
  const conns = await Promise.all(Array.from({ length: p.connections }, () => SmtpConnection.open(p.host, p.port)));
  const latency = new Samples();
  const refused: Record<string, number> = {};
  let next = 0;
  let accepted = 0;
  let sent = 0;
  let lastReply = 0;
  const t0 = performance.now();
  const deadline = t0 + p.timeLimitMs;
  let timedOut = false;
  const killer = setTimeout(() => {
    timedOut = true;
    for (const c of conns) c.destroy();
  }, p.timeLimitMs + 5_000);
  await Promise.all(conns.map(async (conn) => {
    while (next < mails.length && performance.now() < deadline) {
      const mail = mails[next++]!;
      let t = performance.now();
      sent++;
      let reply: Reply;
      try {
        reply = await conn.send(mail, p.fromDataEnd ? (at) => (t = at) : undefined);
      } catch (err) {
        refused[(err as Error).message] = (refused[(err as Error).message] ?? 0) + 1;
        return;
      }
      lastReply = performance.now();
      if (reply.code === 250) {
        accepted++;
        latency.add(lastReply - t);
      } else {
        refused[String(reply.code)] = (refused[String(reply.code)] ?? 0) + 1;
      }
    }
    if (next < mails.length) timedOut = true;
  }));
  clearTimeout(killer);
  for (const c of conns) c.close();
  const duration = ((lastReply || performance.now()) - t0) / 1000;
  return {
    sent, accepted, refused, duration_s: round(duration), ops_per_s: round(accepted / duration, 1), latency: latency.percentiles(),
    bytes_per_mail: mails.length ? Math.round(mails.reduce((s, m) => s + m.data.length, 0) / mails.length) : 0, timed_out: timedOut,
  };
}
