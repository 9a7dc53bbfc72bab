#!/usr/bin/env bash
# test_host_errors: what the host will not let us read is an input error
# (exit 2, naming the file or folder and the OS's reason), never a Windows
# verdict: a c10.dll we may not open was reported as WinError 193 ("reinstall
# the package"), an unlistable torch\lib as "torch_python.dll is missing".
# Run as an unprivileged user (root ignores permissions: under root the
# checker runs through setpriv as nobody).
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=host-errors
# shellcheck disable=SC2016  # expanded when the script exits
at_exit 'chmod -R u+rwx "$tmp"'
chmod 755 "$tmp"
as_user=()
if [ "$(id -u)" -eq 0 ]; then
	if command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups "$B" --version >/dev/null 2>&1; then
		as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	else
		skip_optional "host errors" "running as root without a way to drop privileges to nobody"
		tap_done
	fi
fi
source tests/lib/fixtures.sh
torch=$tmp/root/Python311/Lib/site-packages/torch
mkdir -p "$torch/lib"
echo "__version__ = '2.5.1+cpu'" >"$torch/version.py"
make_dll "$torch/lib/c10.dll" --export c10_fn >/dev/null 2>&1 || not_ok "make_dll c10.dll"
make_dll "$torch/lib/torch_cpu.dll" --import c10.dll:c10_fn >/dev/null 2>&1 || not_ok "make_dll torch_cpu.dll"
chmod -R a+rX "$tmp/root"

chmod 000 "$torch/lib/c10.dll"
"${as_user[@]}" "$B" check --torch "$torch" --root "$tmp/root" >"$tmp/out" 2>&1
check_eq "an unreadable c10.dll: exit 2" 2 $?
check_cmd "...naming the file and the OS's reason" grep -q 'c10.dll.*Permission denied' "$tmp/out"
if grep -q 'WinError 193\|reinstall' "$tmp/out"; then not_ok "...and no WinError 193 verdict"; else ok "...and no WinError 193 verdict"; fi
"${as_user[@]}" "$B" deps "$torch/lib/torch_cpu.dll" --root "$tmp/root" >"$tmp/out" 2>&1
check_eq "deps through the unreadable c10.dll: exit 2" 2 $?
check_cmd "...naming it" grep -q 'c10.dll.*Permission denied' "$tmp/out"
chmod 644 "$torch/lib/c10.dll"

chmod 000 "$torch/lib"
"${as_user[@]}" "$B" check --torch "$torch" --root "$tmp/root" >"$tmp/out" 2>&1
check_eq "an unlistable torch\\lib: exit 2" 2 $?
check_cmd "...naming the folder and the OS's reason" grep -q 'cannot list .*/torch/lib: Permission denied' "$tmp/out"
if grep -q 'is missing' "$tmp/out"; then not_ok "...and no 'missing' verdict"; else ok "...and no 'missing' verdict"; fi
chmod 755 "$torch/lib"
"${as_user[@]}" "$B" check --torch "$torch" --root "$tmp/root" >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -le 1 ]; then ok "readable again: a verdict (exit $rc)"; else not_ok "readable again: exit $rc"; sed 's/^/#   /' "$tmp/out" | head -3; fi
tap_done
