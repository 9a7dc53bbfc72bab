#!/usr/bin/env bash
# test_cuda_wording: the no-driver error says what is true of the install at
# hand (#34): "(torch 1.5 and older)" only for a torch older than 1.6 whose
# caffe2_nvrtc.dll imports nvcuda.dll statically; a newer torch whose
# binaries import it statically is not called torch 1.5. NVIDIA's real
# runtime DLLs with look-alikes of torch's CUDA binaries (tests/cuda/tree.sh).
TEST_NAME="cuda-wording"
export TEST_NAME
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/cuda/tree.sh"
WORK=$tmp
PY='C:\Python311\python.exe'
msg() { "$B" check --root "$WORK/$1" --python "$PY" --json 2>/dev/null | jq -r '[.findings[] | select(.rule == "cuda-no-driver") | .message][0] // ""'; }
for c in "2.9.1 cu126" "1.5.0 cu118"; do
	set -f
	# shellcheck disable=SC2086 # two words: the release and the variant
	set -- $c
	set +f
	if cuda_tree "$WORK/t$1" "$2" --static-nvcuda --torch "$1" >/dev/null 2>"$WORK/err"; then
		m=$(msg "t$1")
		want=no
		[ "$1" = 1.5.0 ] && want=yes
		check_eq "torch $1+$2, caffe2_nvrtc importing nvcuda.dll statically, no driver: 'torch 1.5 and older' said: $want" \
			"$want yes" "$(grep -q 'torch 1.5 and older' <<<"$m" && echo yes || echo no) $(grep -q 'fails with \[WinError 126\]' <<<"$m" && echo yes || echo no)"
		rm -rf "${WORK:?}/t$1"
	else
		skip "torch $1+$2 CUDA tree" "$(tail -1 "$WORK/err")"
	fi
done
tap_done
