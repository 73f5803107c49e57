// A real authoritative DNS server (dns2, UDP) on a free loopback port, whose MX and TXT records a
// test changes at runtime, and which can be switched to answer SERVFAIL or to stay silent (timeout).
import dns2 from 'dns2';

const { Packet } = dns2;
// RFC 1035 §4.1.1 response codes (dns2's typings do not declare Packet.RCODE).
const RCODE_SERVFAIL = 2;
const RCODE_NXDOMAIN = 3;

export type DnsMode = 'answer' | 'servfail' | 'timeout';

export interface MxRecord {
  exchange: string;
  priority: number;
}

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, the form MAILCUE_DNS_SERVERS takes. */
  readonly address: string;
  readonly port: number;
  /** How the server treats every query from now on (a name's own mode, when set, wins). */
  mode: DnsMode;
  /** How the server treats queries for one name; null goes back to the server-wide mode. */
  setMode(name: string, mode: DnsMode | null): void;
  /** Answers queries for one name only after `ms` (a slow but working resolver); 0 removes it. */
  setDelay(name: string, ms: number): void;
  /** Queries received so far, as `TYPE name` (lowercase name). */
  readonly queries: string[];
  setMx(name: string, records: MxRecord[]): void;
  /** Each value is one TXT record; a string[] value is one record split into character-strings. */
  setTxt(name: string, values: (string | string[])[]): void;
  /** IPv4 addresses the name resolves to. */
  setA(name: string, addresses: string[]): void;
  /** IPv6 addresses the name resolves to. */
  setAaaa(name: string, addresses: string[]): void;
  /** Removes every record of the name: queries for it answer NXDOMAIN. */
  clear(name: string): void;
  close(): Promise<void>;
}

interface Zone {
  mx: MxRecord[];
  txt: (string | string[])[];
  a: string[];
  aaaa: string[];
}

const key = (name: string) => name.toLowerCase().replace(/\.$/, '');

export async function startDnsServer(): Promise<TestDnsServer> {
  const zones = new Map<string, Zone>();
  const queries: string[] = [];
  const modes = new Map<string, DnsMode>();
  const delays = new Map<string, number>();
  const zone = (name: string): Zone => {
    let z = zones.get(key(name));
    if (!z) zones.set(key(name), (z = { mx: [], txt: [], a: [], aaaa: [] }));
    return z;
  };

  const state = { mode: 'answer' as DnsMode };
  let closed = false;
  const server = dns2.createServer({
    udp: true,
    handle(request, send) {
      const [question] = request.questions;
      const asked = question?.name ?? '';
      const name = key(asked);
      const typeName = Object.entries(Packet.TYPE).find(([, v]) => v === question?.type)?.[0] ?? String(question?.type);
      queries.push(`${typeName} ${name}`);
      // A reply to a client gone away (socket closed at the end of a test) is not an error here.
      const sendNow = (packet: unknown) => void Promise.resolve(send(packet as never)).catch(() => undefined);
      const delay = delays.get(name) ?? 0;
      const reply = (packet: unknown) => (delay > 0 ? void setTimeout(() => sendNow(packet), delay) : sendNow(packet));
      const mode = modes.get(name) ?? state.mode;
      if (mode === 'timeout') return;
      const response = Packet.createResponseFromRequest(request);
      response.header.aa = 1;
      if (mode === 'servfail') {
        response.header.rcode = RCODE_SERVFAIL;
        reply(response);
        return;
      }
      const z = zones.get(name);
      if (!z) {
        response.header.rcode = RCODE_NXDOMAIN;
      } else if (question?.type === Packet.TYPE.MX) {
        for (const mx of z.mx) {
          response.answers.push({ name: asked, type: Packet.TYPE.MX, class: Packet.CLASS.IN, ttl: 60, exchange: mx.exchange, priority: mx.priority } as never);
        }
      } else if (question?.type === Packet.TYPE.A) {
        for (const address of z.a) response.answers.push({ name: asked, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 60, address } as never);
      } else if (question?.type === Packet.TYPE.AAAA) {
        for (const address of z.aaaa) response.answers.push({ name: asked, type: Packet.TYPE.AAAA, class: Packet.CLASS.IN, ttl: 60, address } as never);
      } else if (question?.type === Packet.TYPE.TXT) {
        for (const data of z.txt) response.answers.push({ name: asked, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 60, data } as never);
      }
      // A known name without records of the asked type: NOERROR with no answers (NODATA).
      reply(response);
    },
  });
  server.on('requestError', () => undefined);
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const port = addresses.udp!.port;

  return {
    address: `127.0.0.1:${port}`,
    port,
    get mode() {
      return state.mode;
    },
    set mode(m: DnsMode) {
      state.mode = m;
    },
    queries,
    setMode(name, mode) {
      if (mode === null) modes.delete(key(name));
      else modes.set(key(name), mode);
    },
    setDelay(name, ms) {
      if (ms > 0) delays.set(key(name), ms);
      else delays.delete(key(name));
    },
    setMx(name, records) {
      zone(name).mx = [...records];
    },
    setTxt(name, values) {
      zone(name).txt = [...values];
    },
    setA(name, addresses) {
      zone(name).a = [...addresses];
    },
    setAaaa(name, addresses) {
      zone(name).aaaa = [...addresses];
    },
    clear(name) {
      zones.delete(key(name));
    },
    async close() {
      // Idempotent: a helper's stop() may run twice (its own failure path, then the test's).
      if (closed) return;
      closed = true;
      await server.close();
    },
  };
}
