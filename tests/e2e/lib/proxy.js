// A TCP proxy in front of the server that a test can cut: every open
// connection is dropped and new ones are refused until it is restored. The
// browser sees a real connection loss (its event stream errors and retries),
// which emulated offline mode does not give for a stream already open.
import net from 'node:net';

/** startProxy listens on a free loopback port and forwards to target (a URL). */
export async function startProxy(target) {
  const { hostname, port } = new URL(target);
  const sockets = new Set();
  let refusing = false;
  const server = net.createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(port), hostname);
    sockets.add(client);
    sockets.add(upstream);
    const done = () => {
      sockets.delete(client);
      sockets.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    for (const s of [client, upstream]) {
      s.on('error', done);
      s.on('close', done);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    /** cut drops every connection and refuses new ones. */
    cut() {
      refusing = true;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    /** restore accepts connections again. */
    restore() {
      refusing = false;
    },
    async close() {
      this.cut();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
