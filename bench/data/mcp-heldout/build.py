# Transcribes the tool definitions of 14 MCP servers (installed from npm into a scratch directory,
# never into this repository) into tools.jsonl. Kept so the provenance of each entry is visible;
# tools.jsonl is the data the bench reads.
#
# For 12 servers the input is the server's own answer to `tools/list`, captured over stdio
# (initialize -> notifications/initialized -> tools/list) with dummy API keys in the environment,
# saved as <DUMPS>/<server>.json. Redis and Google Drive refuse to start without a live Redis / OAuth
# credentials, so their definitions are copied below by hand from the ListTools handler in
# dist/index.js of the published package.
# Descriptions are kept byte for byte (including leading newlines and markdown).
# Parameters: every top-level property of inputSchema, then one level down (properties of an object
# property, or of the object items of an array property), de-duplicated by name, as in ../mcp-servers.
import json, os, sys

DUMPS = sys.argv[1] if len(sys.argv) > 1 else "/tmp/heldout/out"
HERE = os.path.dirname(os.path.abspath(__file__))

PKG = {  # server -> (package@version, default source file inside the package)
    "everything": ("@modelcontextprotocol/server-everything@2026.8.31", None),
    "filesystem": ("@modelcontextprotocol/server-filesystem@2026.8.31", "dist/index.js"),
    "sequential-thinking": ("@modelcontextprotocol/server-sequential-thinking@2026.8.31", "dist/index.js"),
    # @playwright/mcp@0.0.83 is a thin CLI; its tools are defined in its dependency playwright-core.
    "playwright": ("playwright-core@1.64.0-alpha-1790635538000", "lib/coreBundle.js"),
    "notion": ("@notionhq/notion-mcp-server@2.5.2", "scripts/notion-openapi.json"),
    "firecrawl": ("firecrawl-mcp@3.22.2", "dist/index.js"),
    "context7": ("@upstash/context7-mcp@4.1.1", "dist/index.js"),
    "kubernetes": ("mcp-server-kubernetes@4.1.7", None),
    "redis": ("@modelcontextprotocol/server-redis@2025.4.25", "dist/index.js"),
    "postgres": ("@modelcontextprotocol/server-postgres@0.6.2", "dist/index.js"),
    "brave-search": ("@modelcontextprotocol/server-brave-search@0.6.2", "dist/index.js"),
    "everart": ("@modelcontextprotocol/server-everart@0.6.2", "dist/index.js"),
    "gdrive": ("@modelcontextprotocol/server-gdrive@2025.1.14", "dist/index.js"),
    "aws-kb-retrieval": ("@modelcontextprotocol/server-aws-kb-retrieval@0.6.2", "dist/index.js"),
}
K8S_FILE = {"cleanup": "dist/config/cleanup-config.js", "explain_resource": "dist/tools/kubectl-operations.js",
            "list_api_resources": "dist/tools/kubectl-operations.js", "install_helm_chart": "dist/tools/helm-operations.js",
            "upgrade_helm_chart": "dist/tools/helm-operations.js", "uninstall_helm_chart": "dist/tools/helm-operations.js",
            "node_management": "dist/tools/node-management.js", "port_forward": "dist/tools/port_forward.js",
            "stop_port_forward": "dist/tools/port_forward.js", "exec_in_pod": "dist/tools/exec_in_pod.js",
            "ping": "dist/tools/ping.js"}

def source(server, name):
    pkg, f = PKG[server]
    if server == "everything":
        f = f"dist/tools/{name}.js"
    elif server == "kubernetes":
        f = K8S_FILE.get(name, "dist/tools/" + name.replace("_", "-") + ".js")
    return f"{pkg}:{f}"

HAND = {  # copied from dist/index.js (ListToolsRequestSchema handler)
    "redis": [
        {"name": "set", "description": "Set a Redis key-value pair with optional expiration", "inputSchema": {"type": "object", "properties": {
            "key": {"type": "string", "description": "Redis key"}, "value": {"type": "string", "description": "Value to store"},
            "expireSeconds": {"type": "number", "description": "Optional expiration time in seconds"}}}},
        {"name": "get", "description": "Get value by key from Redis", "inputSchema": {"type": "object", "properties": {
            "key": {"type": "string", "description": "Redis key to retrieve"}}}},
        {"name": "delete", "description": "Delete one or more keys from Redis", "inputSchema": {"type": "object", "properties": {
            "key": {"description": "Key or array of keys to delete"}}}},
        {"name": "list", "description": "List Redis keys matching a pattern", "inputSchema": {"type": "object", "properties": {
            "pattern": {"type": "string", "description": "Pattern to match keys (default: *)"}}}},
    ],
    "gdrive": [
        {"name": "search", "description": "Search for files in Google Drive", "inputSchema": {"type": "object", "properties": {
            "query": {"type": "string", "description": "Search query"}}}},
    ],
}

def params(schema):
    out, seen = [], set()
    def add(n, p):
        if n in seen: return
        seen.add(n)
        d = p.get("description") if isinstance(p, dict) else None
        out.append({"name": n, **({"description": d} if d else {})})
    props = (schema or {}).get("properties") or {}
    for n, p in props.items():
        add(n, p)
    for n, p in props.items():
        if not isinstance(p, dict): continue
        sub = p.get("properties") or ((p.get("items") or {}).get("properties") if isinstance(p.get("items"), dict) else None) or {}
        for m, q in sub.items():
            add(m, q)
    return out

ORDER = ["filesystem", "playwright", "firecrawl", "kubernetes", "notion", "everything", "context7", "sequential-thinking",
         "redis", "postgres", "brave-search", "everart", "gdrive", "aws-kb-retrieval"]
rows = []
for server in ORDER:
    tools = HAND[server] if server in HAND else json.load(open(os.path.join(DUMPS, f"{server}.json")))["tools"]
    for t in tools:
        title = t.get("title") or (t.get("annotations") or {}).get("title")
        rows.append({"id": f"{server}.{t['name']}", "server": server, "name": t["name"], "description": t.get("description", ""),
                     **({"title": title} if title else {}), "parameters": params(t.get("inputSchema")),
                     "source": source(server, t["name"])})
assert len({r["id"] for r in rows}) == len(rows)
with open(os.path.join(HERE, "tools.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
print(len(rows), "tools")
