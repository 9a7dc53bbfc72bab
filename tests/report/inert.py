#!/usr/bin/env python3
"""inert.py MODE FILE...: checks that captured output can act on nothing.

MODE is one of
  text-actions  stdout of a text format under GITHUB_ACTIONS=true: the only
                live workflow commands are ours — ::stop-commands::TOKEN (a
                32-hex token) closed by ::TOKEN::, and, with
                --annotations, ::error/::warning/::notice lines before it —
                and nothing command-shaped inside the guard either
  json          a JSON document (stdout or a file): valid UTF-8, parses, and
                no line is command-shaped at all (no guard needed)
  none          stderr (or anything else): no command-shaped line at all
  terminal      outside Actions: no raw control byte but LF and TAB, no C1
                control, no bidi/zero-width/separator character, valid UTF-8
                (the text escaper shows them all as visible escapes)

Lines and commands are found as the runner finds them (gh_commands.py).
Prints "ok" or "bad: <why>" and exits 0 either way.
"""
import json
import re
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from gh_commands import lines_of, parse_line  # noqa: E402

INVISIBLE = re.compile("[\u0080-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def commands(text):
    out, stopped = [], None
    for n, line in enumerate(lines_of(text), 1):
        c = parse_line(line)
        if c is None:
            continue
        c["line"] = n
        if stopped is not None and c["form"] == "v2" and c["name"] == stopped and not c["props"]:
            c["resume"] = True
            out.append(c)
            stopped = None
            continue
        c["stopped"] = stopped is not None
        out.append(c)
        if stopped is None and c["form"] == "v2" and c["name"] == "stop-commands":
            stopped = c["data"]
    return out


def check(mode, data, annotations):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        if mode in ("json", "terminal"):
            return "invalid UTF-8: %s" % e
        text = data.decode("utf-8", errors="replace")
    cmds = commands(text)
    if mode == "json":
        if cmds:
            return "command-shaped lines in JSON: %r" % cmds[:3]
        try:
            json.loads(text)
        except ValueError as e:
            return "not JSON: %s" % e
        return None
    if mode == "none":
        return "command-shaped lines: %r" % cmds[:3] if cmds else None
    if mode == "terminal":
        bad = [c for c in text if (ord(c) < 0x20 and c not in "\n\t") or ord(c) == 0x7f]
        if bad:
            return "raw control characters: %r" % sorted(set(bad))
        inv = INVISIBLE.findall(text)
        if inv:
            return "C1/bidi/invisible characters: %r" % sorted(set(inv))
        return None
    # text-actions
    live = [c for c in cmds if not c.get("stopped") and not c.get("resume")]
    stops = [c for c in live if c["name"] == "stop-commands"]
    others = [c for c in live if c["name"] != "stop-commands"]
    if annotations:
        others = [c for c in others if not (c["form"] == "v2" and c["name"] in ("error", "warning", "notice"))]
    # our own ::group:: / ::endgroup:: around each problem's evidence, written between guards
    others = [c for c in others if not (c["form"] == "v2" and c["name"] in ("group", "endgroup"))]
    if others:
        return "live commands that are not ours: %r" % others[:3]
    if text.strip() and not stops:
        return "text output without the stop-commands guard"
    for s in stops:
        if not re.fullmatch(r"[0-9a-f]{32}", s["data"]):
            return "stop-commands token is not 32 hex digits: %r" % s["data"]
    resumes = [c for c in cmds if c.get("resume")]
    if len(resumes) != len(stops):
        return "a guard is never closed"
    inside = [c for c in cmds if c.get("stopped")]
    if inside:
        return "command-shaped lines inside the guard: %r" % inside[:3]
    if not annotations and text.strip() and stops and lines_of(text)[-1] not in ("::%s::" % stops[-1]["data"],
                                                                                "::endgroup::"):
        return "output after the guard was closed"
    return None


def main():
    args = sys.argv[1:]
    annotations = "--annotations" in args
    args = [a for a in args if a != "--annotations"]
    mode, files = args[0], args[1:]
    for f in files:
        with open(f, "rb") as fh:
            why = check(mode, fh.read(), annotations)
        if why:
            print("bad: %s: %s" % (f, why))
            return
    print("ok")


if __name__ == "__main__":
    main()
