# Transcribes the tool definitions of 5 MCP servers (installed from npm into a scratch directory,
# never into this repository) into tools.jsonl, exactly as ../mcp-heldout-2/build.py does: each
# server's own answer to `tools/list`, captured over stdio with list_tools.py (default options,
# dummy API keys, HOME pointed at a scratch directory), saved as <DUMPS>/<dump>.json. Descriptions
# byte for byte; parameters: every top-level inputSchema property, then one level down.
import json, os, sys

DUMPS = sys.argv[1] if len(sys.argv) > 1 else "/tmp/ho4/dumps"
HERE = os.path.dirname(os.path.abspath(__file__))

# server (as in tools.jsonl) -> (dump file, package@version, entry point that answered tools/list)
PKG = {
    "trello": ("trello", "@delorenj/mcp-server-trello@1.8.1", "build/index.js"),
    "airtable": ("airtable", "airtable-mcp-server@1.14.0", "dist/main.js"),
    "cloudflare": ("cloudflare", "@cloudflare/mcp-server-cloudflare@0.2.0", "dist/index.js run <account id>"),
    "pinecone": ("pinecone", "@pinecone-database/mcp@0.3.0", "dist/index.js"),
    "airbnb": ("airbnb", "@openbnb/mcp-server-airbnb@0.3.0", "dist/index.js"),
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
