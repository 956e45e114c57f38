/**
 * A TCP proxy between clipd and PostgreSQL that the database-fault suites can turn off: clipd is
 * given the proxy's address, so an outage is made here without touching the real cluster, which
 * other tests may share. `refuse()` closes the listener and cuts every open connection (what a
 * client sees when the server is stopped: resets, then ECONNREFUSED); `pass()` listens again on
 * the same port. `cut()` only severs the open connections, as a restart of the server does.
 * `hold()` accepts connections and never answers: a hung server, or a network that drops packets.
 */
import net from "node:net";

export interface PgProxy {
  /** The connection string to give clipd: the target's, with the proxy's host and port. */
  url: string;
  port: number;
  /** Connections accepted so far (a reconnect shows as a new one). */
  readonly accepted: number;
  refuse(): Promise<void>;
  hold(): void;
  pass(): Promise<void>;
  cut(): void;
  close(): Promise<void>;
}

export async function startPgProxy(targetUrl: string): Promise<PgProxy> {
  const target = new URL(targetUrl);
  const targetPort = Number(target.port || 5432);
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  let holding = false;
  const held = new Set<net.Socket>();
  const onConnection = (client: net.Socket) => {
    accepted++;
    if (holding) {
      held.add(client.on("error", () => {}));
      return;
    }
    const upstream = net.connect(targetPort, target.hostname);
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    client.pipe(upstream).pipe(client);
  };
  let server: net.Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = net.createServer(onConnection);
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => {
        port = (s.address() as net.AddressInfo).port;
        server = s;
        resolve();
      });
    });
  const cut = () => {
    // resetAndDestroy sends RST, as the kernel does for a dead server; destroy() alone would FIN.
    for (const s of sockets) s.resetAndDestroy();
    sockets.clear();
  };
  const stop = () =>
    new Promise<void>((resolve) => {
      const s = server;
      server = undefined;
      if (!s) return resolve();
      s.close(() => resolve());
      cut();
    });
  await listen();
  const url = new URL(targetUrl);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  return {
    url: url.toString(),
    port,
    get accepted() {
      return accepted;
    },
    refuse: stop,
    hold() {
      holding = true;
      cut();
    },
    pass: async () => {
      holding = false;
      for (const s of held) s.resetAndDestroy();
      held.clear();
      if (!server) await listen();
    },
    cut,
    close: stop,
  };
}
