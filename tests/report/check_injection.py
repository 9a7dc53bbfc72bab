#!/usr/bin/env python3
"""check_injection.py REPORT.json STDOUT STDERR OUTPUTS SUMMARY JSON_PATH

Proves that the only workflow commands in a `report --format github` run's
stdout and stderr are ours: the annotations (at most 10 per kind, in the
numbers the report's root causes call for, plus the overflow notice), one
::stop-commands::TOKEN and its resume ::TOKEN::. Every other command-shaped
line, in either form, anywhere (also inside the stop-commands block), is a
failure. Also checks the escaping round-trips as the runner decodes it, the
GITHUB_OUTPUT file as the runner parses it, and the summary's HTML.
Prints TAP-like lines; exits 1 on any failure.
"""
import json
import re
import sys

sys.path.insert(0, sys.path[0])
from gh_commands import commands  # noqa: E402

failed = 0


def check(cond, desc, detail=""):
    global failed
    print(("ok - " if cond else "not ok - ") + "injection: " + desc)
    if not cond:
        failed = 1
        if detail:
            print("#   " + str(detail)[:2000].replace("\n", "\n#   "))


def parse_outputs(path):
    """GITHUB_OUTPUT as the runner reads it (SetOutputFileCommand: name=value or name<<DELIM)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, i = {}, 0
    while i < len(lines):
        line = lines[i]
        if line == "":
            i += 1
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            vals, i = [], i + 1
            while i < len(lines) and lines[i] != delim:
                vals.append(lines[i])
                i += 1
            if i == len(lines):
                raise ValueError("unterminated value for " + name)
            out.setdefault(name, []).append("\n".join(vals))
        else:
            name, val = line.split("=", 1)
            out.setdefault(name, []).append(val)
        i += 1
    return out


ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
RANK = {"note": 0, "warning": 1, "error": 2}


def causes(doc):
    """The root causes as docs/report-json.md defines them, computed here
    independently of the checker: findings with the same `cause` (or, in a
    document without, the same rule, WinError, install, leaf and symbol —
    names without regard to ASCII case; a finding without a leaf alone) and
    the same anchor. Returns {key: highest severity}."""
    out = {}
    for f in doc["findings"]:
        low = lambda k: (f.get(k) or "").translate(ASCII_LOWER) if isinstance(f.get(k), str) else None  # noqa: E731
        if isinstance(f.get("cause"), str):
            key = (f["cause"],)
        elif isinstance(f.get("leaf"), str):
            key = (f["rule"], f.get("winerror") or 0, low("install"), low("leaf"), f.get("symbol"))
        else:
            key = (f["rule"], f.get("winerror") or 0, low("install"), low("binary"), f.get("issue"), f.get("title"))
        a = f.get("anchor") if isinstance(f.get("anchor"), dict) else {}
        key += (a.get("file"), a.get("line", 0) if a.get("file") else 0, a.get("col", 0) if a.get("file") else 0)
        out[key] = max(out.get(key, 0), RANK[f["severity"]])
    return out


def main():
    report, stdout, stderr, outputs, summary, json_path = sys.argv[1:7]
    doc = json.load(open(report))
    sev = list(causes(doc).values())
    ne, nw, nn = sev.count(2), sev.count(1), sev.count(0)
    overflow = ne > 10 or nw > 10 or nn > 10
    want = {"error": min(ne, 10), "warning": min(nw, 10), "notice": min(nn, 9 if overflow else 10) + overflow}

    err_cmds = list(commands(stderr))
    check(not err_cmds, "stderr carries no workflow command", err_cmds)

    cmds = list(commands(stdout))
    legacy = [c for c in cmds if c["form"] == "legacy"]
    check(not legacy, "no legacy ##[ command anywhere on stdout", legacy)
    ann = [c for c in cmds if not c["stopped"] and c["name"] in ("error", "warning", "notice")]
    # each problem's evidence folds under Actions: our ::group:: / ::endgroup::, between guards
    groups = [c for c in cmds if not c["stopped"] and c["form"] == "v2" and c["name"] in ("group", "endgroup")]
    stops = [c for c in cmds if c["name"] == "stop-commands"]
    resumes = [c for c in cmds if c.get("resume")]
    ours = set(id(c) for c in ann + groups + stops + resumes)
    others = [c for c in cmds if id(c) not in ours]
    check(not others, "stdout has no command but the annotations, the evidence groups and the stop-commands blocks",
          others)
    check(len(stops) >= 1 and all(re.fullmatch(r"[0-9a-f]{32}", s["data"] or "") for s in stops) and
          len(set(s["data"] for s in stops)) == len(stops),
          "each ::stop-commands:: with its own 32-hex random token", stops)
    check(len(resumes) == len(stops) and all(r["name"] == s["data"] for r, s in zip(resumes, stops)),
          "each block is closed by its ::TOKEN::", resumes)
    check(sum(c["name"] == "group" for c in groups) == sum(c["name"] == "endgroup" for c in groups),
          "every ::group:: is ended", groups)
    inside = [c for c in cmds if c["stopped"] and not c.get("resume")]
    check(not inside, "nothing command-shaped inside the stop-commands block either", inside)
    got = {k: sum(1 for c in ann if c["name"] == k) for k in want}
    check(got == want, "annotation counts follow the per-step limits %s" % want, got)
    if overflow:
        check(any("more problems not annotated" in c["props"].get("title", "") for c in ann),
              "one overflow notice says how many more are in the summary")
    badprops = [c for c in ann if not set(c["props"]) <= {"file", "line", "col", "title"}]
    check(not badprops, "annotation properties are only file/line/col/title", badprops)
    files = sorted(set(c["props"]["file"] for c in ann if "file" in c["props"]))
    wanted_files = sorted(set(f["anchor"]["file"] for f in doc["findings"]
                              if f.get("anchor") and ":" not in f["anchor"]["file"]
                              and not f["anchor"]["file"].startswith(("<", "/", "\\"))
                              and "\n" not in f["anchor"]["file"] and "##[" not in f["anchor"]["file"] and "\r" not in f["anchor"]["file"]
                              and ".." not in f["anchor"]["file"].replace("\\", "/").split("/")
                              and not any(ord(ch) < 32 or ord(ch) == 127 for ch in f["anchor"]["file"])))
    check(files == wanted_files, "file= only for repository anchors, round-tripping through escaping",
          (files, wanted_files))
    bad_title = [c for c in ann if re.search(r"[\r\n\x1b]", c["props"].get("title", ""))]
    check(not bad_title, "titles decode to one line without control characters", bad_title)
    raw = open(stdout, "rb").read() + open(stderr, "rb").read()
    check(b"\x1b" not in raw and b"\xc2\x9b" not in raw, "no terminal escape bytes on stdout/stderr")
    check(b"##[" not in raw, "the legacy ##[ form is broken up everywhere")
    if any("pwned" in f["title"] for f in doc["findings"]):
        check(any("pwned" in c["props"].get("title", "") for c in ann),
              "hostile titles are still shown (escaped), not dropped")

    outs = parse_outputs(outputs)
    check(sorted(outs) == ["failures", "findings", "problems", "report", "status", "warnings"] and
          all(len(v) == 1 for v in outs.values()),
          "GITHUB_OUTPUT defines exactly status, failures, warnings, problems, findings, report once", outs)
    check(outs.get("status") == [doc["status"]], "status output matches", outs.get("status"))
    check(outs.get("report") == [json_path], "a report path with newlines and 'status<<EOF' stays one value",
          outs.get("report"))

    md = open(summary, encoding="utf-8").read()
    # Inside <pre> (an HTML block up to the line with </pre>) Markdown is not interpreted.
    outside = re.sub(r"(?ms)^<pre>.*?</pre>", "", md)
    # CommonMark autolinks of http(s) URLs (<https://...>, URL characters only) are links, not HTML.
    nolinks = re.sub(r"<https?://[A-Za-z0-9\-._~:/?#@!$&*+,;=%]+>", "", md)
    tags = set(re.findall(r"(?<!\\)</?([A-Za-z][A-Za-z0-9]*)", nolinks))
    check(tags <= {"details", "summary", "pre", "sub", "br"} and "](javascript" not in outside,
          "summary carries no raw HTML or javascript: link from the report", tags)
    return failed


if __name__ == "__main__":
    sys.exit(main())
