# Captures a stdio MCP server's tools/list answer: python3 list_tools.py <server> <outdir> <command...>
# Dummy API keys are set so servers that check for a key at start-up still answer tools/list;
# no tool is ever called. Used to produce the dumps that build.py reads (same as ../mcp-heldout-3).
import json, subprocess, sys, os, time, select
name, outdir, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
env = dict(os.environ, FIRECRAWL_API_KEY="fc-dummy", BRAVE_API_KEY="dummy", EVERART_API_KEY="dummy",
           AWS_ACCESS_KEY_ID="x", AWS_SECRET_ACCESS_KEY="x", AWS_REGION="us-east-1", NOTION_TOKEN="ntn_dummy", EXA_API_KEY="dummy", TAVILY_API_KEY="tvly-dummy", GITLAB_PERSONAL_ACCESS_TOKEN="glpat-dummy", LINEAR_API_KEY="lin_api_dummy", ASANA_ACCESS_TOKEN="dummy", ATLASSIAN_SITE_NAME="example", ATLASSIAN_USER_EMAIL="a@example.com", ATLASSIAN_API_TOKEN="dummy", MYSQL_HOST="127.0.0.1", MYSQL_USER="root", MYSQL_PASS="", MYSQL_DB="test", CIRCLECI_TOKEN="dummy", SUPABASE_ACCESS_TOKEN="sbp_dummy", SENTRY_ACCESS_TOKEN="dummy", SENTRY_AUTH_TOKEN="dummy", HEROKU_API_KEY="dummy", ES_URL="http://127.0.0.1:9", ES_API_KEY="dummy", TODOIST_API_KEY="dummy", TODOIST_API_TOKEN="dummy", API_KEY="dummy", STRIPE_SECRET_KEY="sk_test_dummy", HOME="/tmp/ho4/home", AIRTABLE_API_KEY="patdummy.dummy", TRELLO_API_KEY="dummy", TRELLO_TOKEN="dummy", TRELLO_BOARD_ID="dummy", CLOUDFLARE_API_TOKEN="dummy", CLOUDFLARE_ACCOUNT_ID="0123456789abcdef0123456789abcdef", PINECONE_API_KEY="pcsk_dummy", SANITY_PROJECT_ID="dummy", SANITY_DATASET="production", SANITY_API_TOKEN="dummy", MCP_USER_ROLE="developer")
p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
def send(o): p.stdin.write((json.dumps(o) + "\n").encode()); p.stdin.flush()
def recv(id_, timeout=40):
    end = time.time() + timeout
    while time.time() < end and p.poll() is None:
        if select.select([p.stdout], [], [], 0.5)[0]:
            line = p.stdout.readline()
            if not line: break
            try: o = json.loads(line)
            except ValueError: continue
            if o.get("id") == id_: return o
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {},
      "clientInfo": {"name": "heldout", "version": "0"}}})
init = recv(1, 120)
if not init: p.kill(); sys.exit(f"{name}: no initialize answer")
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
tools, cursor, i = [], None, 2
while True:
    send({"jsonrpc": "2.0", "id": i, "method": "tools/list", "params": {"cursor": cursor} if cursor else {}})
    r = recv(i); i += 1
    if not r or "result" not in r: p.kill(); sys.exit(f"{name}: no tools/list answer")
    tools += r["result"]["tools"]; cursor = r["result"].get("nextCursor")
    if not cursor: break
json.dump({"serverInfo": init["result"].get("serverInfo"), "tools": tools}, open(os.path.join(outdir, f"{name}.json"), "w"), indent=1)
print(name, len(tools))
p.kill()
