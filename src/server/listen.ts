// A plain node:http server on a port of its own (the health listener while the app starts, the
// metrics port): listening, the port it got (0 picks one), and a close that ends its connections.
import type http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Listening {
  port: number;
  close(): Promise<void>;
}

/** Listens on `host:port`; rejects when the port cannot be taken (for example EADDRINUSE). */
export async function listen(server: http.Server, port: number, host: string): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
