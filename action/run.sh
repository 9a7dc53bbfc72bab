#!/usr/bin/env bash
# action/run.sh: the action's check step. Turns the inputs (all arriving as
# TDC_INPUT_* environment variables, never spliced into this script) into
# `torch-dll-check check` arguments and runs it. The binary itself writes the
# annotations (stdout), the job summary ($GITHUB_STEP_SUMMARY), the step
# outputs ($GITHUB_OUTPUT: status, failures, warnings, report), the JSON
# report and the SARIF file; this script's exit status is the program's:
# 0 pass, 1 findings at or above fail-on, 2 usage or input error.
#
# With pins=true (the pre-merge gate) the repository's torch pins are judged
# (`check --pins --repo`): no torch needs to be installed, so the installed
# torch is checked too only when python or torch-path is given explicitly —
# before `pip install`, the python on PATH has none.
#
# TDC_ACTION_REPORT_IN (not an input; for tests and for replaying a saved
# report): render that JSON report with `report --in` instead of checking.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=action/inputs.sh
source "$here/inputs.sh"
# Every value is passed as --option=VALUE: never read as another option
# (json: --fail-on=never is a file of that name, not a second --fail-on).
tdc_plain_inputs python torch-path app scan matrix pins repository pins-unchanged fail-on annotations summary \
	json sarif || exit 2

die() {
	echo "::error title=torch-dll-check::$1"
	exit 2
}
exe=${TDC_EXE:-}
if [ -z "$exe" ] || [ ! -x "$exe" ]; then
	die "no torch-dll-check binary (the setup step failed)"
fi

fail_on=${TDC_INPUT_FAIL_ON:-error}
case "$fail_on" in error | warning | never) ;; *) die "fail-on must be error, warning or never" ;; esac
annotations=${TDC_INPUT_ANNOTATIONS:-true}
summary=${TDC_INPUT_SUMMARY:-true}
case "$annotations" in true | false) ;; *) die "annotations must be true or false" ;; esac
case "$summary" in true | false) ;; *) die "summary must be true or false" ;; esac
pins=${TDC_INPUT_PINS:-false}
pins_unchanged=${TDC_INPUT_PINS_UNCHANGED:-false}
case "$pins" in true | false) ;; *) die "pins must be true or false" ;; esac
case "$pins_unchanged" in true | false) ;; *) die "pins-unchanged must be true or false" ;; esac
if [ "$pins" = false ] && { [ -n "${TDC_INPUT_REPOSITORY:-}" ] || [ "$pins_unchanged" = true ]; }; then
	die "repository and pins-unchanged are read only with pins: true"
fi

json=${TDC_INPUT_JSON:-}
if [ -z "$json" ]; then
	json="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/torch-dll-check/report.json"
fi
mkdir -p -- "$(dirname -- "$json")"

args=(--fail-on="$fail_on" --json="$json" --outputs="${GITHUB_OUTPUT:-}")
if [ "$annotations" = true ]; then args+=(--format=github); else args+=(--format=text); fi
if [ "$summary" = true ]; then args+=(--summary="${GITHUB_STEP_SUMMARY:-}"); else args+=(--summary=); fi
[ -z "${TDC_INPUT_SARIF:-}" ] || args+=(--sarif="$TDC_INPUT_SARIF")

if [ -n "${TDC_ACTION_REPORT_IN:-}" ]; then
	exec "$exe" report --in="$TDC_ACTION_REPORT_IN" "${args[@]}"
fi

what=()
# import-first: distribution or package names (PEP 508 names), in order
# every line of it (a YAML `|` block puts one per line): read to the end, not to the first newline
IFS=$', \t\n' read -r -d '' -a import_first <<<"${TDC_INPUT_IMPORT_FIRST:-}" || true
for name in "${import_first[@]}"; do
	[[ "$name" =~ ^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$ ]] ||
		die "import-first: '${name//[^A-Za-z0-9._ -]/?}' is not a package name"
	what+=(--import-first "$name")
done
# processes: how many processes load torch (DataLoader workers + 1; docs/commit.md)
if [ -n "${TDC_INPUT_PROCESSES:-}" ]; then
	if ! [[ "$TDC_INPUT_PROCESSES" =~ ^[1-9][0-9]{0,3}$ ]] || [ "$TDC_INPUT_PROCESSES" -gt 4096 ]; then
		die "processes: '${TDC_INPUT_PROCESSES//[^A-Za-z0-9._ -]/?}' is not a number from 1 to 4096"
	fi
	what+=(--processes "$TDC_INPUT_PROCESSES")
fi
scan=${TDC_INPUT_SCAN:-machine}
[ "$scan" = machine ] || what+=(--root="$scan")
if [ "$pins" = true ]; then
	what+=(--pins --repo="${TDC_INPUT_REPOSITORY:-${GITHUB_WORKSPACE:-.}}")
	[ "$pins_unchanged" = false ] || what+=(--pins-unchanged)
fi
# profiles: machine profile names or files (docs/profiles.md), in order; only with pins
IFS=$', \t\n' read -r -d '' -a profiles <<<"${TDC_INPUT_PROFILES:-}" || true
[ "${#profiles[@]}" -eq 0 ] || [ "$pins" = true ] || die "profiles is read only with pins: true"
for name in "${profiles[@]}"; do
	what+=(--profile="$name")
done
if [ -n "${TDC_INPUT_APP:-}" ]; then
	what+=(--app="$TDC_INPUT_APP")
elif [ -n "${TDC_INPUT_TORCH_PATH:-}" ]; then
	what+=(--torch="$TDC_INPUT_TORCH_PATH")
elif [ -n "${TDC_INPUT_PYTHON:-}" ]; then
	what+=(--python="$TDC_INPUT_PYTHON")
elif [ "$pins" = false ]; then
	py=$(command -v python || command -v python3 || true)
	[ -n "$py" ] || die "give python or torch-path: no python on PATH"
	case "$py" in /[a-z]/*) command -v cygpath >/dev/null && py=$(cygpath -w "$py") ;; esac
	what+=(--python="$py")
fi
[ -z "${TDC_INPUT_MATRIX:-}" ] || what+=(--matrix="$TDC_INPUT_MATRIX")

# An input error (exit 2: a clone without the PR's base commit, a pin file
# that does not parse, a bad option) also becomes one error annotation, so
# the pull request's checks page says why, not only the log. The message is
# the checker's stderr (already escaped for a log: no control characters,
# no leading "::", no "##["), %-escaped as annotation data; `##[` is broken
# once more here in case.
errf=$(mktemp "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/torch-dll-check-stderr.XXXXXX") || die "cannot create a temporary file"
"$exe" check "${what[@]}" "${args[@]}" 2>"$errf"
rc=$?
cat "$errf" >&2
if [ "$rc" -eq 2 ] && [ -s "$errf" ]; then
	msg=$(grep -v "^Try '.*--help'\.\$" "$errf" | head -c 3000)
	msg=${msg//'%'/%25}
	msg=${msg//$'\r'/%0D}
	msg=${msg//$'\n'/%0A}
	msg=${msg//'##['/'#\x23['}
	echo "::error title=torch-dll-check::$msg"
fi
rm -f "$errf"
exit "$rc"
