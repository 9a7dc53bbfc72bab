#!/usr/bin/python3
"""oracle_compare.py CHECK.json ORACLE.jsonl ORACLE.err: the checker's verdict
per binary against what Wine's loader really did (tests/oracle/torchload_oracle.c).

Prints one line per torch binary the oracle loaded:
    agree    NAME checker=loads oracle=0
    agree    NAME checker=loads-via-path oracle=0 after 126   (torch's PATH fallback)
    agree    NAME checker=missing-dll/126 oracle=126
    dllmain  NAME checker=loads oracle=998: imports resolved, DllMain failed (EVIDENCE)
    agree    NAME checker=init-failed/1114 oracle=998 (EVIDENCE): the DllMain failure predicted
    DISAGREE NAME checker=... oracle=...
and exits 1 when any line is DISAGREE.

"dllmain": Wine printed `process_attach Initialization of L"NAME" failed`
while loading that binary (between the oracle's @@oracle markers): the
loader found and bound every import — what the checker decides — and then
the DLL's initialisation failed. The checker does not run DllMain; the
caller decides whether that failure is expected (a stand-in python3XY.dll
whose exports are stubs cannot initialise torch_python.dll) or is the
predicted WinError 1114 (Wine reports a crash in DllMain as 998,
ERROR_NOACCESS, where Windows reports 1114).
"""
import json
import re
import sys


def main(argv):
    check = json.load(open(argv[1], encoding="utf-8"))
    rows = [json.loads(line) for line in open(argv[2], encoding="utf-8")]
    err = open(argv[3], encoding="utf-8", errors="replace").read()
    sections = {}
    for m in re.finditer(r"^@@oracle begin (\d+) tid=\w+$(.*?)(?=^@@oracle end \1 )", err, re.M | re.S):
        sections[int(m.group(1))] = m.group(2)
    verdict = {}
    for b in check["installs"][0]["binaries"]:
        verdict[b["path"].split("\\")[-1].lower()] = (b["outcome"], b.get("winerror"))
    bad = 0
    for r in rows:
        if r.get("kind") not in ("dll", "pyd"):
            continue
        name = r["path"].split("\\")[-1]
        mine = verdict.get(name.lower())
        if mine is None:
            print("DISAGREE %s checker=(not checked) oracle=%d" % (name, r["error"]))
            bad = 1
            continue
        shown = mine[0] if mine[0] == "loads" else "%s/%s" % mine
        init = re.search(r'process_attach Initialization of L"([^"]*)" failed', sections.get(r["order"], ""))
        if mine[0] == "init-failed" and r["error"] != 0 and init:
            # the checker's predicted DllMain failure (1114); Wine reports a crash in DllMain as 998
            print("agree    %s checker=%s oracle=%d (Wine: %s)" % (name, shown, r["error"], init.group(0)))
        elif r["error"] == 0 and mine[0] == "loads":
            print("agree    %s checker=loads oracle=0" % name)
        elif r["error"] == 0 and mine[0] == "loads-via-path" and r.get("stage") == "path_fallback":
            # loaded by torch's fallback: the 0x1100 attempt failed (first_error), LoadLibraryW with PATH did not
            print("agree    %s checker=loads-via-path oracle=0 after %s" % (name, r.get("first_error")))
        elif r["error"] != 0 and mine[0] != "loads" and r["error"] == mine[1]:
            print("agree    %s checker=%s oracle=%d" % (name, shown, r["error"]))
        elif r["error"] != 0 and mine[0] == "loads" and init:
            print("dllmain  %s checker=loads oracle=%d: imports resolved, DllMain failed (Wine: %s)" % (
                name, r["error"], init.group(0)))
        else:
            print("DISAGREE %s checker=%s oracle=%d" % (name, shown, r["error"]))
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv))
