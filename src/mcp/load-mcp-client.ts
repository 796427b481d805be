type ClientModule = typeof import("@modelcontextprotocol/sdk/client/index.js");

// tsup defines it per output format; unset when the source runs directly (tests, tsx).
declare const __CATALOG_BUILD_FORMAT__: string | undefined;

let loading: Promise<ClientModule> | undefined;

/**
 * The MCP SDK's client module, loaded by the first connection rather than by the entry's import:
 * it brings Ajv and zod-to-json-schema (about 0.15 s of CPU and 100 module files in a new process)
 * that a host which imports the entry but connects to no server never needs. Each build loads the
 * copy of its own format, as its static imports of the SDK's `types.js` do: the CommonJS build
 * with `require` (esbuild keeps `import()` as it is, which would load the ES module copy, whose
 * `McpError` is another class), the ES module build and the sources with `import()`.
 * @internal
 */
export function loadMcpClient(): Promise<ClientModule> {
  if (loading !== undefined) return loading;
  if (typeof __CATALOG_BUILD_FORMAT__ !== "undefined" && __CATALOG_BUILD_FORMAT__ === "cjs") {
    loading = Promise.resolve(require("@modelcontextprotocol/sdk/client/index.js") as ClientModule);
  } else {
    loading = import("@modelcontextprotocol/sdk/client/index.js");
  }
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}
