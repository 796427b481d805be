// The MCP fixture server's tools live in ../servers/fixture-server.mjs (plain JavaScript, so the
// stdio fixture server starts without tsx); in-process tests import them from here as before.
export {
  corruptingTransport,
  createFixtureServer,
  type FixtureOptions,
  type FixtureState,
  HOSTILE_NAMES,
} from "../servers/fixture-server.mjs";
