#!/usr/bin/env bash
# shellcheck disable=SC2317  # overlap_build runs through fx_build
# test_grouped_trees: root causes on a hand-made Windows tree where three
# problems hit overlapping torch binaries, checked through the real loader
# emulation and rendered by every GitHub form:
#   A  libomp140.x86_64.dll missing (error, 126): fbgemm.dll and everything
#      that imports it — torch_cpu, torch, torch_python, _C.pyd
#   B  c10.dll lacks c10_nope (error, 127): ops_a.dll and ops_b.dll; c10.dll
#      is also on A's chains (torch_cpu imports it)
#   C  nvcuda.dll, delay-loaded by torch_cpu.dll, missing (warning): reported
#      once per install, on torch.dll, the first binary in torch's load
#      order whose load reaches it, which A fails too
# Each cause is one annotation, one summary entry, one SARIF result naming
# exactly its binaries; torch.dll is named by A and C, and B's binaries by B
# alone. The same tree with libomp140 present has only B and C.
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=grouped-trees
unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY GITHUB_OUTPUT GITHUB_WORKFLOW_REF NO_COLOR

# shellcheck source=tests/lib/fixtures.sh
source tests/lib/fixtures.sh
# shellcheck source=tests/lib/trees/loader.sh
source tests/lib/trees/loader.sh
# shellcheck source=tests/lib/trees/torch_cases.sh
source tests/lib/trees/torch_cases.sh

overlap_build() {
	local d=$1 tl
	torch_tree "$d/a" fbgemm_omp140 || return 1
	tl=$d/a/Python311/Lib/site-packages/torch/lib
	# C: torch_cpu.dll also delay-loads the absent nvcuda.dll
	make_dll "$tl/torch_cpu.dll" --export torch_cpu_init --import C10.DLL:c10_init \
		--import fbgemm.dll:fbgemm_gemm --import-ordinal libiomp5md.dll:5 --delay-import nvcuda.dll:cuInit ||
		return 1
	# B: two binaries binding an export c10.dll does not have
	make_dll "$tl/ops_a.dll" --export a --import c10.dll:c10_nope --import KERNEL32.dll:GetLastError || return 1
	make_dll "$tl/ops_b.dll" --export b --import c10.dll:c10_nope || return 1
	# the same tree with libomp140.x86_64.dll in torch\lib: A is gone
	cp -a "$d/a" "$d/b"
	make_dll "$d/b/Python311/Lib/site-packages/torch/lib/libomp140.x86_64.dll" --export omp_get_max_threads
}
if ! trees=$(FX_KEY=$( (declare -f loader_base torch_tree) | sha256sum | cut -c1-16) fx_build grouped_overlap \
	overlap_build 2>"$tmp/tree.err") || [ ! -d "$trees/a" ]; then
	not_ok "cannot build the trees"
	tail -5 "$tmp/tree.err" | sed 's/^/#   /'
	tap_done
fi
TORCH='C:\Python311\Lib\site-packages\torch'

# run NAME TREE: the JSON report, annotations, summary, outputs and SARIF of one check.
run() {
	local o=$tmp/$1
	mkdir -p "$o"
	GITHUB_ACTIONS=true "$B" check --root "$trees/$2" --torch "$TORCH" --json "$o/report.json" --format github \
		--summary "$o/summary" --outputs "$o/outputs" --sarif "$o/sarif" --sarif-anchor requirements.txt \
		>"$o/stdout" 2>"$o/stderr"
	sed -n '/^::stop-commands::/q;p' "$o/stdout" >"$o/github"
}
run a a
run b b

# What the loader says about each binary: the causes are built on these verdicts.
check_eq "the loader's verdicts: A's five fail with 126, B's two with 127" \
	"_C.cp311-win_amd64.pyd:126 fbgemm.dll:126 ops_a.dll:127 ops_b.dll:127 torch.dll:126 torch_cpu.dll:126 torch_python.dll:126" \
	"$(jq -r '[.installs[0].binaries[] | select(.winerror != 0) | (.path | sub(".*\\\\"; "")) + ":" + (.winerror | tostring)] | sort | join(" ")' "$tmp/a/report.json")"

# causes FILE: one line per cause, "rule leaf: binaries" (computed from the JSON's `cause` ids).
causes() {
	jq -r '[.findings[] | select(.binary != null)] | group_by(.cause) | map("\(.[0].rule) \(.[0].leaf): " +
		([.[].binary | sub(".*\\\\"; "")] | sort | join(" "))) | sort | .[]' "$1"
}
check_eq "three causes; torch.dll in A and C" \
	"delay-load-missing nvcuda.dll: torch.dll
missing-dll libomp140.x86_64.dll: _C.cp311-win_amd64.pyd fbgemm.dll torch.dll torch_cpu.dll torch_python.dll
missing-entry-point c10.dll: ops_a.dll ops_b.dll" "$(causes "$tmp/a/report.json")"

# annotations: one per cause, each naming exactly its binaries
ann() { grep "^::$2 " "$tmp/$1/github" | grep -c -F -- "$3"; }
check_eq "github: 2 error annotations" 2 "$(grep -c '^::error ' "$tmp/a/github")"
check_eq "github: A names its five" 1 \
	"$(ann a error 'Affects 5 torch binaries: fbgemm.dll, torch.dll, torch_cpu.dll, torch_python.dll, _C.cp311-win_amd64.pyd%0A')"
check_eq "github: B names its two, and not A's" 1 "$(ann a error 'Affects 2 torch binaries: ops_a.dll, ops_b.dll%0A')"
check_eq "github: B's title says one more binary" 1 "$(ann a error 'lacks c10_nope (and 1 more torch binary)::')"
check_eq "github: C is one warning on torch.dll" 1 \
	"$(ann a warning 'Binary: C:\Python311\Lib\site-packages\torch\lib\torch.dll%0A')"
check_eq "outputs: 2 failures (causes, not the 7 failing binaries)" 2 "$(sed -n '/^failures<</{n;p}' "$tmp/a/outputs")"
check_eq "summary: one entry per cause" "2 1 1" \
	"$(grep -c '^❌ \*\*[0-9]' "$tmp/a/summary") $(grep -c -F '**Affects** 5 torch binaries: fbgemm\.dll, torch\.dll, torch\_cpu\.dll, torch\_python\.dll, \_C\.cp311\-win\_amd64\.pyd' "$tmp/a/summary") $(grep -c -F '**Affects** 2 torch binaries: ops\_a\.dll, ops\_b\.dll' "$tmp/a/summary")"
check_eq "sarif: each result's related locations are exactly its cause's binaries" \
	"delay-load-missing: torch.dll
missing-dll: fbgemm.dll torch.dll torch_cpu.dll torch_python.dll _C.cp311-win_amd64.pyd
missing-entry-point: ops_a.dll ops_b.dll" \
	"$(jq -r '.runs[0].results[] | select(.relatedLocations) | "\(.ruleId): " +
		([.relatedLocations[].logicalLocations[0].fullyQualifiedName | sub(".*\\\\"; "")] | join(" "))' \
		"$tmp/a/sarif" | sort)"
check_eq "sarif: one fingerprint per result" "$(jq '.runs[0].results | length' "$tmp/a/sarif")" \
	"$(jq -r '.runs[0].results[].partialFingerprints["torchDllCheckCause/v1"]' "$tmp/a/sarif" | sort -u | wc -l)"

# With libomp140 present, A is gone; B and C keep their ids (and SARIF fingerprints) unchanged.
check_eq "libomp140 present: B and C remain" \
	"delay-load-missing nvcuda.dll: torch.dll
missing-entry-point c10.dll: ops_a.dll ops_b.dll" "$(causes "$tmp/b/report.json")"
fp() { jq -r ".runs[0].results[] | select(.ruleId == \"$2\") | .partialFingerprints[\"torchDllCheckCause/v1\"]" "$tmp/$1/sarif"; }
check_eq "B's fingerprint is the same in both runs" "$(fp a missing-entry-point)" "$(fp b missing-entry-point)"
check_eq "C's fingerprint is the same in both runs" "$(fp a delay-load-missing)" "$(fp b delay-load-missing)"
check_eq "github: 1 error annotation" 1 "$(grep -c '^::error ' "$tmp/b/github")"
tap_done
