#!/usr/bin/python3
"""oracle_ext_compare.py CHECK.json ORACLE.jsonl ORACLE.err: the checker's
verdict on each binary of an extension (installs[0].extensions[]) or of a
package imported first (installs[0].imported_first[]) against what Wine's
loader really did with it (tests/oracle/torchload_oracle.c, stages
"extension" and "first").

Prints one line per binary the oracle was asked to load:
    agree    NAME checker=loads oracle=0
    agree    NAME checker=missing-entry-point/127 (c10.dll!SYM) oracle=127 (Wine bound N stubs)
    dllmain  NAME checker=loads oracle=died: imports resolved, its initialisation ended the process
    DISAGREE NAME checker=... oracle=...
and exits 1 when any line is DISAGREE.

Wine never fails a load on a missing export: it binds a stub and says
`No implementation for DLL.NAME imported from L"PATH"` (WINEDEBUG=warn+module)
where Windows fails with 127 before any DllMain runs. Those lines, between the
oracle's @@oracle markers of the binary, are read as 127: the checker agrees
when the DLL and symbol it names are among them. A binary loaded this way may
then crash in its initialisation (calling a stub, or torch's registries
without torch_python): the process ends with no result line, and the markers
still attribute the lines. Wine's differences stay listed in
tests/scenarios/compare.py.
"""
import json
import re
import sys


def main(argv):
    check = json.load(open(argv[1], encoding="utf-8"))
    rows = [json.loads(line) for line in open(argv[2], encoding="utf-8") if line.strip()]
    err = open(argv[3], encoding="utf-8", errors="replace").read()
    inst = check["installs"][0]
    mine = {}
    for group in ("extensions", "imported_first"):
        for ext in inst.get(group) or []:
            for b in ext["binaries"]:
                mine[b["path"].split("\\")[-1].lower()] = (ext["name"], b)
    # every @@oracle section, the last one possibly unterminated (the process died in it)
    sections = {}
    for m in re.finditer(r"^@@oracle begin (\d+) tid=\w+$(.*?)(?=^@@oracle end \1 |\Z)", err, re.M | re.S):
        sections[int(m.group(1))] = m.group(2)
    done = {r["order"]: r for r in rows if "order" in r}
    asked = [l.strip() for l in open(argv[4], encoding="utf-8")] if len(argv) > 4 else []
    bad = 0
    # the binaries asked for, in order: those after the last torch step
    steps = [r for r in rows if r.get("stage") in ("extension", "first")]
    orders = [r["order"] for r in steps]
    if asked and len(orders) < len(asked):
        last = max(sections) if sections else -1
        # the process died while loading the next binary: its section has no end marker
        for name in asked[len(orders):len(orders) + 1]:
            steps.append({"order": last, "path": name, "error": None})
    for r in steps:
        name = r["path"].split("\\")[-1]
        if name.lower() not in mine:
            print("DISAGREE %s checker=(not checked) oracle=%s" % (name, r["error"]))
            bad = 1
            continue
        ext, b = mine[name.lower()]
        text = sections.get(r["order"], "")
        stubs = re.findall(r"No implementation for ([^.\s]+\.dll)\.(\S+) imported from L\"([^\"]*)\"", text, re.I)
        died = r["error"] is None
        shown = b["outcome"] if b["outcome"] == "loads" else "%s/%s" % (b["outcome"], b["winerror"])
        if b["winerror"] == 127 and stubs:
            hit = any(d.lower() == (b["leaf"] or "").lower() and s == b["symbol"] for d, s, _ in stubs)
            if hit:
                print("agree    %s checker=%s (%s!%s) oracle=127 (Wine bound %d stubs%s)" % (
                    name, shown, b["leaf"], b["symbol"][:60], len(stubs), "; then the process died" if died else ""))
            else:
                print("DISAGREE %s checker=%s (%s!%s) oracle=127 on %s" % (
                    name, shown, b["leaf"], b["symbol"], ", ".join("%s!%s" % (d, s) for d, s, _ in stubs[:3])))
                bad = 1
        elif stubs:
            print("DISAGREE %s checker=%s oracle=127 (%s)" % (name, shown, ", ".join("%s!%s" % (d, s) for d, s, _ in stubs[:3])))
            bad = 1
        elif died and b["outcome"] == "loads":
            print("dllmain  %s checker=loads oracle=died: imports resolved, its initialisation ended the process" % name)
        elif died:
            print("DISAGREE %s checker=%s oracle=died without a missing import" % (name, shown))
            bad = 1
        elif r["error"] != 0 and b["outcome"] == "loads" and re.search(r'process_attach Initialization of L"[^"]*" failed', text):
            # imports bound, a DllMain failed (Wine's 998): as oracle_compare.py's "dllmain", the caller
            # decides whether it is the stand-in python3XY.dll's (torch_python.dll cannot initialise on stubs)
            init = re.findall(r'process_attach Initialization of L"([^"]*)" failed', text)
            print("dllmain  %s checker=loads oracle=%d: imports resolved, DllMain of %s failed" % (name, r["error"], ",".join(sorted(set(init)))))
        elif r["error"] == 0 and b["outcome"] == "loads":
            print("agree    %s checker=loads oracle=0" % name)
        elif r["error"] != 0 and b["outcome"] != "loads" and r["error"] == b["winerror"]:
            print("agree    %s checker=%s oracle=%d" % (name, shown, r["error"]))
        else:
            print("DISAGREE %s checker=%s oracle=%s" % (name, shown, r["error"]))
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv))
