# Transcribes the tool definitions of 12 MCP servers (installed from npm into a scratch directory,
# never into this repository) into tools.jsonl. Kept so the provenance of each entry is visible;
# tools.jsonl is the data the bench reads.
#
# The input of every server is its own answer to `tools/list`, captured over stdio with
# list_tools.py (initialize -> notifications/initialized -> tools/list), default options, dummy API
# keys in the environment, HOME pointed at a scratch directory, saved as <DUMPS>/<dump>.json.
# Descriptions are kept byte for byte. Parameters: every top-level property of inputSchema, then one
# level down (properties of an object property, or of the object items of an array property),
# de-duplicated by name, as in ../mcp-servers and ../mcp-heldout.
import json, os, sys

DUMPS = sys.argv[1] if len(sys.argv) > 1 else "/tmp/bh2/out"
HERE = os.path.dirname(os.path.abspath(__file__))

# server (as in tools.jsonl) -> (dump file, package@version, entry point that answered tools/list)
PKG = {
    "chrome-devtools": ("chrome-devtools", "chrome-devtools-mcp@1.11.0", "build/src/bin/chrome-devtools-mcp.js"),
    "ea-playwright": ("playwright-ea", "@executeautomation/playwright-mcp-server@1.0.12", "dist/index.js"),
    "desktop-commander": ("desktop-commander", "@wonderwhy-er/desktop-commander@0.2.52", "dist/index.js"),
    "git-cyanheads": ("git-cy", "@cyanheads/git-mcp-server@2.15.3", "dist/index.js"),
    "gitlab": ("gitlab", "@modelcontextprotocol/server-gitlab@2025.4.25", "dist/index.js"),
    "linear": ("linear", "linear-mcp@1.2.0", "build/index.js"),
    "asana": ("asana", "@roychri/mcp-server-asana@1.8.0", "dist/index.js"),
    "jira": ("jira", "@aashari/mcp-server-atlassian-jira@3.3.0", "dist/index.js"),
    "mongodb": ("mongodb", "mongodb-mcp-server@3.0.4", "dist/esm/index.js"),
    "tavily": ("tavily", "tavily-mcp@0.2.22", "build/index.js"),
    "exa": ("exa", "exa-mcp-server@3.4.1", "dist/stdio.cjs"),
    "google-calendar": ("gcal", "@cocal/google-calendar-mcp@2.6.3", "build/index.js"),
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

rows = []
for server, (dump, pkg, entry) in PKG.items():
    for t in json.load(open(os.path.join(DUMPS, f"{dump}.json")))["tools"]:
        title = t.get("title") or (t.get("annotations") or {}).get("title")
        rows.append({"id": f"{server}.{t['name']}", "server": server, "name": t["name"], "description": t.get("description", ""),
                     **({"title": title} if title else {}), "parameters": params(t.get("inputSchema")),
                     "source": f"{pkg}:{entry} (tools/list)"})
assert len({r["id"] for r in rows}) == len(rows)
with open(os.path.join(HERE, "tools.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
print(len(rows), "tools")
