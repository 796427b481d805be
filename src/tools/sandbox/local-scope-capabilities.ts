import type { SandboxCapabilities } from "./process-sandbox.js";

/**
 * What sandbox scope `"local"` allows under every OS sandbox (bubblewrap, sandbox-exec): the
 * host's files, environment and `/tmp` as they are, no network and no Unix sockets. One value, so
 * the backends cannot drift apart on what the same scope means.
 */
export const LOCAL_SCOPE_CAPABILITIES: SandboxCapabilities = Object.freeze({
  network: false,
  unixSockets: false,
  readOutsideWorkspace: true,
  writeOutsideWorkspace: true,
  writeGitMetadata: true,
  hostEnvironment: true,
  sharedTmp: true,
});
