#!/usr/bin/env bash
# test_pe_robust: the fixture DLLs truncated at many offsets and with random
# byte flips, parsed by the ASan+UBSan build. Every mutant must give a result
# or a clean error (exit 0 or 2), never a crash, a sanitizer report or a hang.
#
# Truncations: every offset below 4 KiB (headers, section table, the first
# sections) of the main fixtures (x64 and x86 fixture.dll, the lld-linked
# delay.dll), every 16th there for the others, then every 61st byte beyond.
# Flips: 1-8 random bytes per mutant, 300 mutants per fixture, fixed seeds so
# a failure reproduces. Mutants live in /dev/shm when it exists: writing
# ~17,000 small files to disk is what made this test slow on a busy machine. Mutants are parsed in batches of 400
# per process (a crash anywhere fails the batch, which is then re-run file by
# file to name the culprit).
set -u
TEST_NAME=pe_robust
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
bin=$B
fx=$(bash tests/pe/fixtures.sh) || { not_ok "fixtures build"; tap_done; }
if [ -d /dev/shm ] && [ -w /dev/shm ]; then work=$(mktemp -d /dev/shm/tdc-pe-robust.XXXXXX); else work=$(mktemp -d); fi
# shellcheck disable=SC2016 # expanded when it runs
at_exit 'rm -rf "$work"'

python3 - "$fx" "$work/m" <<'PY'
import os, random, sys
fx, work = sys.argv[1], sys.argv[2]
n = 0
for arch in sorted(os.listdir(fx)):
    d = os.path.join(fx, arch)
    if not os.path.isdir(d):
        continue
    for name in sorted(os.listdir(d)):
        data = open(os.path.join(d, name), 'rb').read()
        out = os.path.join(work, arch + '-' + name)
        os.makedirs(out)
        main = (arch, name) in (("x64", "fixture.dll"), ("x86", "fixture.dll"), ("x64", "delay.dll"))
        cuts = list(range(0, min(len(data), 4096), 1 if main else 16)) + list(range(4096, len(data), 61))
        for c in cuts:
            open(os.path.join(out, 't%05d' % c), 'wb').write(data[:c])
            n += 1
        rng = random.Random(arch + name)  # fixed seed per fixture
        for i in range(300):
            b = bytearray(data)
            for _ in range(rng.randint(1, 8)):
                p = rng.randrange(len(b))
                # Bias toward headers and small values, where the structure is.
                if rng.random() < 0.5:
                    p = rng.randrange(min(len(b), 1024))
                b[p] = rng.choice([0, 0xff, 0x80, 0x7f, rng.randrange(256)])
            open(os.path.join(out, 'f%04d' % i), 'wb').write(bytes(b))
            n += 1
print(n, file=open(os.path.join(work, 'count'), 'w'))
PY
total=$(cat "$work/m/count")

# run_batch FILE...: 0 when the batch is clean: exit 0 or 2, no sanitizer
# report. Its JSON is kept (as json/N-COUNT) for one validation pass at the end.
nbatch=0
mkdir -p "$work/json"
run_batch() {
	local rc
	nbatch=$((nbatch + 1))
	timeout 60 "$bin" pe --json "$@" >"$work/json/$nbatch-$#" 2>"$work/err"
	rc=$?
	[ "$rc" -eq 0 ] || [ "$rc" -eq 2 ] || return 1
	! grep -qE 'AddressSanitizer|UndefinedBehaviorSanitizer|runtime error|LeakSanitizer' "$work/err"
}

for dir in "$work"/m/*/; do
	name=$(basename "$dir")
	mapfile -t files < <(find "$dir" -type f | sort)
	bad=()
	for ((i = 0; i < ${#files[@]}; i += 400)); do
		batch=("${files[@]:i:400}")
		run_batch "${batch[@]}" && continue
		for f in "${batch[@]}"; do
			run_batch "$f" || bad+=("$f")
		done
	done
	if [ ${#bad[@]} -eq 0 ]; then
		ok "$name: ${#files[@]} mutants parsed or rejected cleanly"
	else
		not_ok "$name: ${#bad[@]} of ${#files[@]} mutants crashed"
		for f in "${bad[@]:0:3}"; do
			echo "#   $f"
			run_batch "$f"
			sed 's/^/#     /' "$work/err" | head -15
		done
	fi
done

# Mutated names are arbitrary bytes: every batch's output must still be strict
# UTF-8 JSON with one entry per file.
check_cmd "every batch printed valid JSON with one entry per file" python3 -c '
import json, os, sys
d = sys.argv[1]
for name in os.listdir(d):
    want = int(name.split("-")[1])
    doc = json.load(open(os.path.join(d, name), encoding="utf-8"))
    assert doc["schema"] == "torch-dll-check/pe/v1"
    assert len(doc["files"]) == want, (name, len(doc["files"]))
' "$work/json"

# Names with bytes that are not UTF-8 come out as U+FFFD, not raw bytes.
cp "$fx/x64/fixture.dll" "$work/latin1.dll"
python3 - "$work/latin1.dll" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
i = b.find(b"GetTickCount\0")
b[i:i + 3] = b"\xe9\x80\""  # invalid UTF-8, then a quote
open(p, "wb").write(bytes(b))
PY
"$bin" pe --json "$work/latin1.dll" >"$work/out" 2>/dev/null
check_cmd "non-UTF-8 and quote bytes in names give valid JSON" python3 -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
names = [f.get("name") for i in d["files"][0]["imports"] for f in i["functions"]]
assert "\ufffd\ufffd\"TickCount" in names, names
' "$work/out"
echo "# $total mutants"
tap_done
