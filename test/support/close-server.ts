import type { Server } from "node:http";

/**
 * Closes a test's HTTP server and resolves once it is closed. `close()` alone waits for the
 * clients' keep-alive connections to time out (5 s): past the shared project's leak check, and a
 * file's wall time. So the connections are closed first.
 */
export function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
