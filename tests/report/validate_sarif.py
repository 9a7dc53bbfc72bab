#!/usr/bin/env python3
"""validate_sarif.py SCHEMA.json FILE.sarif [--github]: validates a SARIF
file against the SARIF 2.1.0 JSON schema (draft-04, from npm's
@microsoft/jest-sarif, fetched by .ci/npm-tools) with python3-jsonschema,
and with --github also against what GitHub code scanning's upload needs:
every result has a location whose artifactLocation.uri is repository-relative
and whose region.startLine is >= 1 (otherwise the whole upload is refused:
"locationFromSarifResult: expected at least one location"), so does every
related location of a result that has one, ruleIndex points at the rule
named by ruleId. Prints the problems; exits 1 if any."""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
github = "--github" in sys.argv[3:]
problems = []
v = jsonschema.Draft4Validator(schema)
for e in sorted(v.iter_errors(doc), key=lambda e: list(e.path)):
    problems.append("schema: %s at /%s" % (e.message[:300], "/".join(map(str, e.path))))
if github:
    for run in doc.get("runs", []):
        rules = run["tool"]["driver"].get("rules", [])
        ids = [r["id"] for r in rules]
        if len(ids) != len(set(ids)):
            problems.append("duplicate rule ids")
        for i, r in enumerate(run.get("results", [])):
            if rules and ids[r.get("ruleIndex", -1)] != r["ruleId"]:
                problems.append("result %d: ruleIndex does not match ruleId" % i)
            locs = r.get("locations") or []
            if not locs:
                problems.append("result %d (%s): no location" % (i, r["ruleId"]))
            for loc in locs:
                pl = loc.get("physicalLocation", {})
                uri = pl.get("artifactLocation", {}).get("uri", "")
                if not uri or ":" in uri or uri.startswith("/") or "\\" in uri:
                    problems.append("result %d: uri %r is not repository-relative" % (i, uri))
                if pl.get("region", {}).get("startLine", 0) < 1:
                    problems.append("result %d: no region.startLine" % i)
            for loc in r.get("relatedLocations") or []:
                pl = loc.get("physicalLocation")
                uri = (pl or {}).get("artifactLocation", {}).get("uri", "")
                if locs and (not uri or ":" in uri or uri.startswith("/") or "\\" in uri):
                    problems.append("result %d: related location uri %r is not repository-relative" % (i, uri))
for p in problems[:50]:
    print(p)
sys.exit(1 if problems else 0)
