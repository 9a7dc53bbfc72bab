#!/usr/bin/env bash
# test_registry_budget: a total budget for the registry values read (issue
# #34, item 4's spirit). A reg export with a huge number of values under one
# key the checker reads (the VC++ runtimes key) was kept whole: 3 million
# values (80 MB) cost 550 MB of memory and passed. Now more than 250,000
# values (or 64 MiB of value data) in the keys read is an error that names
# the file and line, exit 2, with time and memory bounded; values outside
# those keys cost nothing. The same export with 1,000 values loads.
TEST_NAME=inventory/registry_budget
export TEST_NAME
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
W=$tmp
if [ -d /dev/shm ] && [ -w /dev/shm ] && W=$(mktemp -d /dev/shm/tdc-reg-budget.XXXXXX); then
	at_exit rm -rf "'$W'"
else
	W=$tmp
fi
# export FILE KEY N: a reg export whose KEY holds the redistributable's values and N more
export_n() {
	python3 - "$@" <<'PYEOF'
import sys
path, key, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(path, "w", newline="") as f:
    f.write("Windows Registry Editor Version 5.00\r\n\r\n")
    f.write("[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64]\r\n")
    f.write('"Installed"=dword:00000001\r\n"Version"="v14.44.35211.00"\r\n')
    f.write("\r\n[HKEY_LOCAL_MACHINE\\%s]\r\n" % key)
    for i in range(n):
        f.write('"v%d"=dword:00000001\r\n' % i)
PYEOF
}
mkdir -p "$W/root/Windows/System32"
RT='SOFTWARE\Microsoft\VisualStudio\14.0\VC\Runtimes\x64'
export_n "$W/many.reg" "$RT" 250000
/usr/bin/time -f '%e %M' -o "$W/cost" "$B" inventory --root "$W/root" --registry "$W/many.reg" --json >/dev/null 2>"$W/err"
echo $? >"$W/rc"
check_eq "250,002 values in the runtimes key: an error at the line past the budget, exit 2" \
	"2|torch-dll-check: inventory: $W/many.reg:250006: more than 250000 values in the keys read (what a check reads holds a few thousand): a hostile or damaged export?" \
	"$(cat "$W/rc")|$(head -1 "$W/err")"
read -r secs kb < <(tail -1 "$W/cost")
echo "# 250,002 values: ${secs}s, peak ${kb} KiB ($B)"
check_cmd "...within 60 s and 1 GiB, sanitizers included" awk -v s="$secs" -v k="$kb" 'BEGIN { exit !(s < 60 && k < 1048576) }'
# outside the keys read: not kept, not counted
export_n "$W/outside.reg" 'SOFTWARE\Elsewhere' 250100
check_eq "250,100 values in a key no check reads: loaded, the redistributable read" '14.44.35211.0' \
	"$("$B" inventory --root "$W/root" --registry "$W/outside.reg" --json 2>"$W/err" | jq -r '.inventory.redistributables[] | select(.arch == "x64") | .version' 2>&1)"
export_n "$W/few.reg" "$RT" 1000
check_eq "1,000 values in the runtimes key: loaded" '14.44.35211.0' \
	"$("$B" inventory --root "$W/root" --registry "$W/few.reg" --json 2>"$W/err" | jq -r '.inventory.redistributables[] | select(.arch == "x64") | .version' 2>&1)"
tap_done
