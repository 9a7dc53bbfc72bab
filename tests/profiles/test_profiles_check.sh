#!/usr/bin/env bash
# shellcheck disable=SC2016  # jq programs in single quotes
# test_profiles_check: `check --profile` of an installed torch (issue 30,
# docs/profiles.md) on REAL wheels laid out as Windows installs
# (tests/lib/trees/wheels.sh): the loader runs on each profile's machine, the
# install's own files plus System32 as the profile has it (what it lacks of
# the DLLs the profiles list is hidden, whatever the runner's tree holds), and
# the profile's redistributable is the registry's. The runner is GitHub's
# kind: the real redistributable 14.44 and Visual Studio's libomp140 in
# System32. Asserted: torch 2.4.0 loads on that runner and fails on the clean
# Windows 11 profile with WinError 126 on libomp140.x86_64.dll, the verdict
# `check` gives on a tree built with the profile's real files (the
# redistributable alone); torch 2.9.1 passes there and fails on the oldest
# redistributable's profile (redist-too-old), as `check` says on a tree with
# the real 14.29 redistributable; a profile never passes what the runner fails.
TEST_NAME=profiles/check
TDC_KEEP_TMP=${TDC_KEEP_TMP:-${KEEP:-}}
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/lib/trees/wheels.sh"
set -u
WORK=$tmp
unset GITHUB_EVENT_NAME GITHUB_EVENT_PATH GITHUB_ACTIONS GITHUB_OUTPUT GITHUB_STEP_SUMMARY

regfile() {
	printf 'Windows Registry Editor Version 5.00\r\n\r\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64]\r\n"Installed"=dword:00000001\r\n"Version"="v%s"\r\n' "$2" >"$1"
}
regfile "$WORK/144.reg" 14.44.35211.00
regfile "$WORK/129.reg" 14.29.30133.00
V='[.profile_checks[] | [.profile, .verdict, .winerror, .leaf]]'
ERR='[.findings[] | select(.severity == "error") | [.rule, .winerror, .leaf]] | unique'

for v in 2.4.0 2.9.1; do
	if ! whl=$(wheel_fetch torch "$v" 2>"$WORK/err"); then
		skip "torch $v on profiles" "PyPI/pip did not give torch $v's win_amd64 wheel: $(tail -1 "$WORK/err")"
		continue
	fi
	if ! py=$(wheel_tree "$WORK/$v" "$whl" 2>"$WORK/err"); then
		not_ok "torch $v: tree from $(basename "$whl")"
		continue
	fi
	# the runner: GitHub's kind; the profiles' machines built from their real files
	if ! { tree_variant "$WORK/$v" "$WORK/$v-vs" && tree_redist "$WORK/$v-vs" 14.44.35112 &&
		tree_libomp140 "$WORK/$v-vs" >/dev/null &&
		tree_variant "$WORK/$v" "$WORK/$v-144" && tree_redist "$WORK/$v-144" 14.44.35112 &&
		tree_variant "$WORK/$v" "$WORK/$v-129" && tree_redist "$WORK/$v-129" 14.29.30133; }; then
		not_ok "torch $v: the runner trees"
		continue
	fi
	prof=$("$B" check --root "$WORK/$v-vs" --python "$py" --registry "$WORK/144.reg" --json \
		--profile win11-24h2-clean-vc14.44 --profile win10-22h2-clean-vc14.29 2>"$WORK/err")
	rc=$?
	c144=$("$B" check --root "$WORK/$v-144" --python "$py" --registry "$WORK/144.reg" --json 2>/dev/null)
	c129=$("$B" check --root "$WORK/$v-129" --python "$py" --registry "$WORK/129.reg" --json 2>/dev/null)
	runner=$("$B" check --root "$WORK/$v-vs" --python "$py" --registry "$WORK/144.reg" --json 2>/dev/null)
	echo "# torch $v: runner $(jq -r .status <<<"$runner"); profiles $(jq -c "$V" <<<"$prof"); 14.44 tree $(jq -c "$ERR" <<<"$c144"); 14.29 tree $(jq -c "$ERR" <<<"$c129")"
	case $v in
	2.4.0)
		check_eq "2.4.0: loads on the VS runner (a warning), fails on both clean profiles with 126 on libomp140" \
			'warn|[["win11-24h2-clean-vc14.44","fail",126,"libomp140.x86_64.dll"],["win10-22h2-clean-vc14.29","fail",126,"libomp140.x86_64.dll"]]' \
			"$(jq -r .status <<<"$runner")|$(jq -c "$V" <<<"$prof")"
		"$B" check --root "$WORK/$v-vs" --python "$py" --registry "$WORK/144.reg" --profile win11-24h2-clean-vc14.44 \
			--format=github --summary="$WORK/sum.md" >/dev/null 2>&1
		check_eq "2.4.0: the job summary's table: the install on the profile fails (126, libomp140)" 1 \
			"$(grep -cF 'torch | clean Windows 11 24H2\, VC\+\+ redistributable 14\.44\, no Visual Studio\, no NVIDIA GPU (win11\-24h2\-clean\-vc14\.44) | ❌ fails (WinError 126, libomp140\.x86\_64\.dll) |' "$WORK/sum.md")"
		check_eq "2.4.0: the clean 14.44 profile's verdict is check's on the tree with the real 14.44 redistributable alone" \
			"$(jq -c '[.findings[] | select(.severity == "error" and .winerror == 126) | .leaf] | unique' <<<"$c144")" \
			"$(jq -c '[.profile_checks[0].leaf]' <<<"$prof")"
		check_eq "2.4.0: one profile-fails error on the install naming both profiles, saying Visual Studio is why it loads here; exit 1" \
			'1|1|["win11-24h2-clean-vc14.44","win10-22h2-clean-vc14.29"]|true' \
			"$rc|$(jq '[.findings[] | select(.rule == "profile-fails")] | length' <<<"$prof")|$(jq -c '.findings[] | select(.rule == "profile-fails") | .profiles' <<<"$prof")|$(jq '[.findings[] | select(.rule == "profile-fails") | .title | contains("only because Visual Studio is installed here")] | all' <<<"$prof")"
		;;
	2.9.1)
		check_eq "2.9.1: loads on the clean 14.44 profile (the runner's warnings), fails on the 14.29 one: 1114 on msvcp140.dll" \
			'warn|fail|1114|msvcp140.dll' \
			"$(jq -r '.profile_checks[0].verdict' <<<"$prof")|$(jq -r '.profile_checks[1] | "\(.verdict)|\(.winerror)|\(.leaf)"' <<<"$prof")"
		check_eq "2.9.1: the 14.29 profile's WinError and DLL are check's on the tree with the real 14.29 redistributable" \
			"$(jq -c '[.findings[] | select(.severity == "error" and .winerror != null) | [.winerror, .leaf]] | unique' <<<"$c129")" \
			"$(jq -c '[.profile_checks[1] | [.winerror, .leaf]]' <<<"$prof")"
		check_eq "2.9.1: each agrees with check on the tree with that profile's real redistributable" \
			"$(jq -r .status <<<"$c144" | sed 's/warn/pass/')|$(jq -r .status <<<"$c129")" \
			"$(jq -r '.profile_checks[0].verdict' <<<"$prof" | sed 's/warn/pass/')|$(jq -r '.profile_checks[1].verdict' <<<"$prof")"
		;;
	esac
	# a profile never passes what the runner fails: the bare Wine tree (no redistributable) on the GitHub profile
	if [ "$v" = 2.4.0 ]; then
		out=$("$B" check --root "$WORK/$v" --python "$py" --json --profile gha-windows-2025 2>/dev/null)
		check_eq "2.4.0 on a runner that fails: the GitHub profile fails too" "fail|fail" \
			"$(jq -r .status <<<"$out")|$(jq -r '.profile_checks[0].verdict' <<<"$out")"
	fi
done
check_eq "no --profile: the report has no profile_checks" null \
	"$("$B" check --root "$WORK/2.9.1-144" --python "$(find "$WORK/2.9.1-144" -maxdepth 2 -name python.exe | head -1 | sed "s|$WORK/2.9.1-144|C:|; s|/|\\\\|g")" --registry "$WORK/144.reg" --json 2>/dev/null | jq -c .profile_checks)"
tap_done
