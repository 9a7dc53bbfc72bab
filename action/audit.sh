#!/usr/bin/env bash
# action/audit.sh: the action's audit step (input audit-history). Records the
# check's JSON report as this runner's next snapshot in the history
# repository (refs/torch-dll-check/<runner>), annotates the drift since the
# previous snapshot and adds it to the job summary. With input fleet=true it
# renders the fleet table of the history instead (no check ran).
# Inputs arrive as TDC_INPUT_* environment variables, never spliced in.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=action/inputs.sh
source "$here/inputs.sh"
# Values go in as --option=VALUE: never read as another option.
tdc_plain_inputs audit-history runner-name audit-fail-on fleet || exit 2

die() {
	echo "::error title=torch-dll-check::$1"
	exit 2
}
exe=${TDC_EXE:-}
if [ -z "$exe" ] || [ ! -x "$exe" ]; then die "no torch-dll-check binary (the setup step failed)"; fi
history=${TDC_INPUT_AUDIT_HISTORY:-}
[ -n "$history" ] || die "audit-history is empty"

if [ "${TDC_INPUT_FLEET:-false}" = true ]; then
	exec "$exe" fleet --history="$history" --format=text --summary="${GITHUB_STEP_SUMMARY:-}"
fi

fail_on=${TDC_INPUT_AUDIT_FAIL_ON:-error}
case "$fail_on" in error | warning | note | never) ;; *) die "audit-fail-on must be error, warning, note or never" ;; esac
report=${TDC_REPORT:-}
if [ -z "$report" ] || [ ! -f "$report" ]; then die "the check wrote no JSON report to record"; fi
args=(audit --history="$history" --report="$report" --fail-on="$fail_on" --format=github
	--summary="${GITHUB_STEP_SUMMARY:-}")
[ -z "${TDC_INPUT_RUNNER_NAME:-}" ] || args+=(--runner="$TDC_INPUT_RUNNER_NAME")
exec "$exe" "${args[@]}"
