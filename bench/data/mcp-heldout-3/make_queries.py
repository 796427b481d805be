# Turns queries.src (kind|tool names|query, one a line, written by hand) into queries.jsonl and
# checks the writing rule: no query reuses a word of a gold tool's name (each snake_case part, with
# or without a plural s). Run before any ranker saw the set; kept for provenance.
import json, os, re
HERE = os.path.dirname(os.path.abspath(__file__))
tools = {}
for line in open(os.path.join(HERE, "tools.jsonl")):
    row = json.loads(line)
    tools[row["name"]] = row["id"]
rows, bad = [], []
for i, line in enumerate(open(os.path.join(HERE, "queries.src")), 1):
    kind, gold, query = line.rstrip("\n").split("|", 2)
    words = set(re.findall(r"[a-z]+", query.lower()))
    for name in gold.split(","):
        for part in name.split("_"):
            if {part, part.rstrip("s"), part + "s"} & words:
                bad.append((i, name, part, query))
    rows.append({"id": f"h{i}", "kind": kind, "query": query, "gold_tool_ids": [tools[g] for g in gold.split(",")],
                 "gold_mode": "all" if kind == "multi" else "any"})
assert not bad, bad
with open(os.path.join(HERE, "queries.jsonl"), "w") as f:
    for row in rows:
        f.write(json.dumps(row, ensure_ascii=False) + "\n")
print(len(rows), "queries")
