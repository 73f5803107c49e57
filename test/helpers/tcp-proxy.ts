// A TCP proxy on loopback that a test can cut and heal, to stand for a network partition between
// two processes (DESIGN.md §8 "Faults the cluster must survive"). Cut, it stops forwarding in both
// directions without closing anything: bytes, ends and resets that arrive are held back, a new
// connection is accepted and held without reaching the target, and nobody sees a reset or a FIN.
// Each side learns of the cut only as a real partition teaches it: by timeouts (keepalives,
// deadlines, leases). Healed, everything held flows on in order, as it would once packets get
// through again; a side that gave up in between closed its own socket, and that close reaches the
// other side then.
import net from 'node:net';

export interface TcpProxy {
  /** The port the proxy listens on, on 127.0.0.1. */
  readonly port: number;
  /** `127.0.0.1:<port>`, for a process's dial address. */
  readonly address: string;
  /** `http://127.0.0.1:<port>`, for an etcd endpoint. */
  readonly url: string;
  /** Whether forwarding is stopped. */
  readonly cut: boolean;
  /** Connections accepted so far (held ones included). */
  readonly accepted: number;
  /** Connections open now. */
  readonly open: number;
  /** Stops forwarding in both directions; closes nothing. */
  cutOff(): void;
  /** Forwards again: everything held flows on, held connections reach the target. */
  heal(): void;
  /** Closes every connection at once (both sides see a reset); the proxy keeps listening. */
  resetAll(): void;
  close(): Promise<void>;
}

/** Past this many held bytes in one direction the source is paused: the kernel holds the rest. */
const HOLD_BYTES = 4 * 1024 * 1024;

/** One direction of a connection: what `from` sends goes to `to`, or waits while the proxy is cut. */
class Direction {
  private held: Buffer[] = [];
  private heldBytes = 0;
  private ended = false;
  to: net.Socket | null = null;

  constructor(private readonly from: net.Socket, private readonly isCut: () => boolean) {
    from.on('data', (b: Buffer) => {
      if (this.isCut() || !this.to) {
        this.held.push(b);
        this.heldBytes += b.length;
        if (this.heldBytes > HOLD_BYTES) from.pause();
      } else if (!this.to.write(b)) {
        from.pause();
      }
    });
    from.on('end', () => {
      if (this.isCut() || !this.to) this.ended = true;
      else this.to.end();
    });
  }

  /** Sends on what was held, once the proxy forwards and the other side is connected. */
  flush(): void {
    const to = this.to;
    if (!to || this.isCut()) return;
    for (const b of this.held) to.write(b);
    this.held = [];
    this.heldBytes = 0;
    if (this.ended) to.end();
    this.from.resume();
  }

  /** Backpressure: the other side drained. */
  drained(): void {
    if (!this.isCut()) this.from.resume();
  }
}

interface Link {
  client: net.Socket;
  upstream: net.Socket | null;
  up: Direction;
  down: Direction | null;
  /** A side reset or closed while cut: the other side is told at the heal. */
  broken: boolean;
}

/** Proxies 127.0.0.1:<port> (a free one, or `port` when given) to `target` ("host:port"). */
export async function startTcpProxy(target: string, port = 0): Promise<TcpProxy> {
  const split = target.lastIndexOf(':');
  const host = target.slice(0, split).replace(/^\[(.*)\]$/, '$1');
  const targetPort = Number(target.slice(split + 1));
  const links = new Set<Link>();
  let cut = false;
  let accepted = 0;
  const isCut = () => cut;

  const destroy = (link: Link) => {
    links.delete(link);
    link.client.destroy();
    link.upstream?.destroy();
  };
  /** One side failed or closed: the other side hears of it now, or at the heal. */
  const broke = (link: Link) => {
    if (cut) link.broken = true;
    else destroy(link);
  };
  const connect = (link: Link) => {
    const upstream = net.connect({ host, port: targetPort, allowHalfOpen: true });
    upstream.setNoDelay(true);
    link.upstream = upstream;
    link.up.to = upstream;
    link.down = new Direction(upstream, isCut);
    link.down.to = link.client;
    upstream.on('drain', () => link.up.drained());
    link.client.on('drain', () => link.down?.drained());
    upstream.on('error', () => broke(link));
    upstream.on('close', () => broke(link));
    link.up.flush();
  };

  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    accepted++;
    client.setNoDelay(true);
    const link: Link = { client, upstream: null, up: new Direction(client, isCut), down: null, broken: false };
    links.add(link);
    client.on('error', () => broke(link));
    client.on('close', () => broke(link));
    if (!cut) connect(link);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.address() as net.AddressInfo).port;

  return {
    port: bound,
    address: `127.0.0.1:${bound}`,
    url: `http://127.0.0.1:${bound}`,
    get cut() {
      return cut;
    },
    get accepted() {
      return accepted;
    },
    get open() {
      return links.size;
    },
    cutOff() {
      cut = true;
    },
    heal() {
      cut = false;
      for (const link of [...links]) {
        if (!link.upstream) connect(link);
        else {
          link.up.flush();
          link.down?.flush();
        }
        // What broke during the cut reaches the other side after the bytes sent before it.
        if (link.broken) {
          links.delete(link);
          link.client.destroySoon();
          link.upstream?.destroySoon();
        }
      }
    },
    resetAll() {
      for (const link of [...links]) {
        links.delete(link);
        link.client.resetAndDestroy();
        link.upstream?.resetAndDestroy();
      }
    },
    close() {
      for (const link of [...links]) destroy(link);
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
