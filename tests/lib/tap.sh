# tap.sh: helpers for test scripts (source it). Each check prints one TAP-like
# line; tests/run counts them. Set TEST_NAME before use for clearer lines.
# Exit status of a script: 0 when every check passed (use tap_done at the end).
TAP_FAILED=0

ok() { echo "ok - ${TEST_NAME:-test}: $*"; }
# skip DESC REASON: the check could not run here. tests/run counts it as
# skipped (never passed); under CI=true it fails the run. skip_optional is for
# a check that is allowed not to run in CI (say why in REASON).
skip() { echo "ok - ${TEST_NAME:-test}: $1 # SKIP $2"; }
skip_optional() { echo "ok - ${TEST_NAME:-test}: $1 # SKIP optional: $2"; }
not_ok() { echo "not ok - ${TEST_NAME:-test}: $*"; TAP_FAILED=1; }

# check_eq DESC EXPECTED ACTUAL
check_eq() {
	if [ "$2" == "$3" ]; then ok "$1"; else
		not_ok "$1"
		echo "#   expected: $2"
		echo "#   actual:   $3"
	fi
}

# check_cmd DESC CMD...: passes when CMD exits 0.
check_cmd() {
	local desc=$1
	shift
	local out
	if out=$("$@" 2>&1); then ok "$desc"; else
		not_ok "$desc"
		printf '%s\n' "$out" | head -20 | sed 's/^/#   /'
	fi
}

# check_status DESC EXPECTED_STATUS CMD...
check_status() {
	local desc=$1 want=$2
	shift 2
	local out rc
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -eq "$want" ]; then ok "$desc"; else
		not_ok "$desc (status $rc, expected $want)"
		printf '%s\n' "$out" | head -20 | sed 's/^/#   /'
	fi
}

# cpu_mark, then cpu_since: sets _tdc_cpu_secs to the whole seconds of CPU (user
# + system) that this script's finished child processes used between the two (a command
# substitution's commands count once it has ended). A cost bound on CPU time
# holds whatever else the machine runs (tests/run runs tests side by side);
# one on wall time does not.
# (bash's `times` must run in this shell, not in a command substitution.)
_tdc_children_ms() {
	local f=${TMPDIR:-/tmp}/tdc-times.$$.$RANDOM
	times >"$f"
	_tdc_ms=$(awk 'END { split($0, t, /[ms ]+/); print int((t[1] * 60 + t[2] + t[3] * 60 + t[4]) * 1000) }' "$f")
	rm -f "$f"
}
cpu_mark() { _tdc_children_ms; _tdc_cpu_mark=$_tdc_ms; }
cpu_since() { _tdc_children_ms; _tdc_cpu_secs=$(((_tdc_ms - ${_tdc_cpu_mark:-0}) / 1000)); }
tap_done() { exit "$TAP_FAILED"; }

# The cache for generated and fetched files, outside the clone.
: "${TDC_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/torch-dll-check}"
export TDC_CACHE
