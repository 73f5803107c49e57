// A raw SMTP client on a plain socket, for what client libraries refuse to send: DATA far over the
// advertised SIZE, more recipients than allowed, many idle connections.
import net from 'node:net';

export class SmtpSocket {
  private buffer = '';
  private readonly waiting: ((line: string) => void)[] = [];
  private readonly replies: string[] = [];
  closed = false;

  private constructor(readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      this.buffer += text;
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, nl).replace(/\r$/, '');
        this.buffer = this.buffer.slice(nl + 1);
        // Multi-line replies ("250-..."): only the last line ("250 ...") completes a reply.
        if (/^\d{3}-/.test(line)) {
          this.replies.push(line);
          continue;
        }
        const full = [...this.replies.splice(0), line].join('\n');
        const next = this.waiting.shift();
        if (next) next(full);
        else this.pendingReplies.push(full);
      }
    });
    socket.on('close', () => {
      this.closed = true;
      for (const w of this.waiting.splice(0)) w('');
    });
    socket.on('error', () => undefined);
  }

  private readonly pendingReplies: string[] = [];

  /** `localAddress`: another loopback address (127.0.0.2, …) to be another client IP. */
  static async open(port: number, localAddress?: string): Promise<{ smtp: SmtpSocket; greeting: string }> {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const smtp = new SmtpSocket(socket);
    return { smtp, greeting: await smtp.reply() };
  }

  /** The next complete reply ('' when the server closed the connection). */
  reply(): Promise<string> {
    const ready = this.pendingReplies.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    if (this.closed) return Promise.resolve('');
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  async command(line: string): Promise<string> {
    this.socket.write(`${line}\r\n`);
    return this.reply();
  }

  /** Writes with backpressure, so the sender never holds more than the socket's buffer. */
  async write(data: string | Buffer): Promise<void> {
    if (!this.socket.write(data)) await new Promise((r) => this.socket.once('drain', r));
  }

  close(): void {
    this.socket.destroy();
  }
}
