#!/usr/bin/env python3
"""gh_commands.py FILE...: finds every workflow command the GitHub Actions
runner would see in FILE (a captured stdout or stderr), the way the runner
finds them (actions/runner src/Runner.Common/ActionCommand.cs and
ActionCommandManager.cs):

- output is split into lines at CR, LF and CRLF (.NET ReadLine);
- TryParseV2: the line, leading whitespace trimmed, starts with "::" and has
  a second "::" after it; the command name is the text up to the first space;
  properties are "k=v" separated by ",", escaped %25 %0D %0A %3A %2C;
  data is escaped %25 %0D %0A;
- else TryParse (legacy): "##[" anywhere in the line, then "]"; the command
  name up to the first space; properties separated by ";".

Unlike the runner, every command-shaped line counts, registered command or
not, and also inside a ::stop-commands:: block (recorded with stopped=true),
so a test can demand that nothing command-shaped appears but ours.

Prints one JSON object per command: file, line, form (v2|legacy), name,
props, data, stopped.
"""
import json
import sys


def unescape(s, prop):
    pairs = [("%0D", "\r"), ("%0A", "\n")]
    if prop:
        pairs += [("%3A", ":"), ("%2C", ",")]
    pairs.append(("%25", "%"))
    for a, b in pairs:
        s = s.replace(a, b)
    return s


def lines_of(text):
    out, cur, i = [], [], 0
    while i < len(text):
        c = text[i]
        if c == "\r":
            out.append("".join(cur))
            cur = []
            if i + 1 < len(text) and text[i + 1] == "\n":
                i += 1
        elif c == "\n":
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    if cur:
        out.append("".join(cur))
    return out


def parse_line(line):
    msg = line.lstrip()
    if msg.startswith("::"):
        end = msg.find("::", 2)
        if end >= 0:
            info = msg[2:end]
            sp = info.find(" ")
            name = info if sp < 0 else info[:sp]
            props = {}
            if sp > 0:
                for p in info[sp + 1:].strip().split(","):
                    if not p:
                        continue
                    kv = p.split("=", 1)
                    if len(kv) == 2 and kv[0] and kv[1]:
                        props[kv[0]] = unescape(kv[1], True)
            return {"form": "v2", "name": name, "props": props, "data": unescape(msg[end + 2:], False)}
    i = line.find("##[")
    if i >= 0:
        rb = line.find("]", i)
        if rb >= 0:
            info = line[i + 3:rb]
            sp = info.find(" ")
            return {"form": "legacy", "name": info if sp < 0 else info[:sp], "props": {},
                    "data": line[rb + 1:]}
    return None


def commands(path):
    text = open(path, "rb").read().decode("utf-8", "replace")
    stop = None
    for n, line in enumerate(lines_of(text), 1):
        c = parse_line(line)
        if not c:
            continue
        c.update({"file": path, "line": n, "stopped": stop is not None})
        if stop is not None and c["name"].lower() == stop.lower():
            stop = None
            c["resume"] = True
        elif stop is None and c["name"] == "stop-commands":
            stop = c["data"]
        yield c


if __name__ == "__main__":
    for p in sys.argv[1:]:
        for c in commands(p):
            print(json.dumps(c))
