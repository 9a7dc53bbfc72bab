# shellcheck shell=bash
# action/inputs.sh: sourced by the action's step scripts (setup.sh, run.sh,
# audit.sh). Inputs arrive as TDC_INPUT_<NAME> environment variables (never
# spliced into a script) and are data: a value must never become a second
# line of $GITHUB_OUTPUT (a newline in `version` would add an `exe=` line),
# a workflow command in the log, or an option of the program (the scripts
# pass every value as `--option=VALUE`, which the program's parser never
# reads as another option).

# tdc_plain_inputs NAME...: for each input NAME (as action.yml spells it:
# torch-path) whose value holds a newline or another control character (C0,
# DEL, or a C1 control in UTF-8), one error annotation naming the input.
# Returns 1 if any was refused. The value itself is not printed.
tdc_plain_inputs() {
	local name var val bad=0 LC_ALL=C
	for name in "$@"; do
		var=TDC_INPUT_$(printf '%s' "$name" | tr 'a-z-' 'A-Z_')
		val=${!var-}
		if [[ $val == *[[:cntrl:]]* || $val == *$'\xc2'[$'\x80'-$'\x9f']* ]]; then
			echo "::error title=torch-dll-check::input $name holds a newline or another control character: refused (inputs are data: one line of text)"
			bad=1
		fi
	done
	return "$bad"
}
