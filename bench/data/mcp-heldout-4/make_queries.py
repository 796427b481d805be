# Turns queries.src (kind|gold tool ids|query, one a line, written by hand) into queries.jsonl and
# checks the writing rules before any ranker saw the set (kept for provenance):
# - no query reuses a word of a gold tool's name (each snake_case or kebab-case part, with or
#   without a plural s), as in ../mcp-heldout-3;
# - a `noword` query shares no word with its gold tool's name, title or description either
#   (function words and the product's own name excepted; crude suffix folding: s, es, ed, ing);
# - a `short` query has one to three words.
import json, os, re
HERE = os.path.dirname(os.path.abspath(__file__))
PRODUCTS = {"trello", "airtable", "cloudflare", "pinecone", "airbnb"}
STOP = set("a an the and or of in on at to for from by with into over under up out off my me i it its "
           "is are be do does did what which who when how this that these those your you all any every "
           "new so as but not can have has get".split())
def fold(w):
    for suffix in ("ing", "ed", "es", "s"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)]
    return w
tools = {}
for line in open(os.path.join(HERE, "tools.jsonl")):
    row = json.loads(line)
    tools[row["id"]] = row
rows, bad = [], []
for i, line in enumerate(open(os.path.join(HERE, "queries.src")), 1):
    kind, gold, query = line.rstrip("\n").split("|", 2)
    words = set(re.findall(r"[a-z]+", query.lower()))
    for tool_id in gold.split(","):
        tool = tools[tool_id]
        for part in re.split(r"[_-]", tool["name"]):
            if {part, part.rstrip("s"), part + "s"} & words:
                bad.append((i, tool_id, part, query))
        if kind == "noword":
            text = " ".join([tool["name"].replace("_", " ").replace("-", " "), tool.get("title", ""), tool["description"]])
            tool_words = {fold(w) for w in re.findall(r"[a-z]+", text.lower())} - {fold(w) for w in STOP}
            shared = {w for w in words - STOP - PRODUCTS if fold(w) in tool_words}
            if shared:
                bad.append((i, tool_id, sorted(shared), query))
    if kind == "short" and not 1 <= len(query.split()) <= 3:
        bad.append((i, gold, "not short", query))
    rows.append({"id": f"q{i}", "kind": kind, "query": query, "gold_tool_ids": gold.split(","),
                 "gold_mode": "all" if kind == "multi" else "any"})
assert not bad, "\n".join(map(str, bad))
with open(os.path.join(HERE, "queries.jsonl"), "w") as f:
    for row in rows:
        f.write(json.dumps(row, ensure_ascii=False) + "\n")
print(len(rows), "queries")
