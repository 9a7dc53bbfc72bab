# gate_lib.sh: what the gate's end-to-end tests build (source it after
# tests/lib/tap.sh, tests/lib/fixtures.sh and tests/lib/trees/loader.sh; needs
# $tmp).
#
# shellcheck disable=SC2154 # $tmp is the sourcing test's
# - pr_origin NAME BASE_FN HEAD_FN SUBJECT: a real git repository standing
#   for the GitHub repository of a pull request: a bare $tmp/NAME.git with
#   `main` (the base commit, BASE_FN WORKTREE writes its files), `feature`
#   (the head commit on top, HEAD_FN WORKTREE changes them, committed with
#   the message SUBJECT), refs/pull/7/head and refs/pull/7/merge — the merge
#   commit GitHub creates for a PR, which a pull_request job checks out.
#   Sets PR_BASE, PR_HEAD, PR_MERGE (commit ids); pr_use NAME sets them again.
# - pr_event FILE [HEAD_REPO]: the pull_request event payload of that PR as
#   GitHub writes it to $GITHUB_EVENT_PATH (the fields a workflow reads:
#   number, base/head ref, sha and repo, merge_commit_sha); HEAD_REPO is the
#   head's repository (default octo/app; another one makes a fork's PR).
# - gate_machine KIND DIR: a runner's C:\ as a Wine prefix lays it out:
#   DIR/drive_c (a real System32: tests/lib/trees/loader.sh) and DIR/system.reg,
#   the registry Wine wrote after `wine reg add` of the VC++ runtime keys
#   (x64 14.40, tests/lib/wine_registry.sh's prefix, shared cache).
#   KIND hosted: as GitHub's images, the redistributable's DLLs (Wine's PE
#   builds) and Visual Studio's libomp140.x86_64.dll in System32; bare: no
#   redistributable (neither its DLLs nor the registry's VC\Runtimes keys,
#   both views), no libomp140.
# shellcheck shell=bash

pr_git() { git -c user.name=Dev -c user.email=dev@example.com -c commit.gpgsign=false -c init.defaultBranch=main "$@"; }

pr_origin() {
	local name=$1 base_fn=$2 head_fn=$3 subject=$4
	local w=$tmp/$name.work o=$tmp/$name.git
	rm -rf "$w" "$o"
	pr_git init -q "$w" || return 1
	"$base_fn" "$w" || return 1
	(cd "$w" && pr_git add -A && GIT_AUTHOR_DATE='2026-11-30T10:00:00Z' GIT_COMMITTER_DATE='2026-11-30T10:00:00Z' \
		pr_git commit -q -m "Base of the pull request") || return 1
	PR_BASE=$(git -C "$w" rev-parse HEAD)
	pr_git -C "$w" checkout -q -b feature || return 1
	"$head_fn" "$w" || return 1
	(cd "$w" && pr_git add -A && GIT_AUTHOR_DATE='2026-11-30T11:00:00Z' GIT_COMMITTER_DATE='2026-11-30T11:00:00Z' \
		pr_git commit -q --allow-empty -m "$subject") || return 1
	PR_HEAD=$(git -C "$w" rev-parse HEAD)
	# GitHub's test merge: the head merged into the base, on no branch.
	pr_git -C "$w" checkout -q --detach main || return 1
	(cd "$w" && GIT_AUTHOR_DATE='2026-11-30T11:01:00Z' GIT_COMMITTER_DATE='2026-11-30T11:01:00Z' \
		pr_git merge -q --no-ff -m "Merge $PR_HEAD into $PR_BASE" "$PR_HEAD") || return 1
	PR_MERGE=$(git -C "$w" rev-parse HEAD)
	pr_git init -q --bare "$o" || return 1
	pr_git -C "$w" push -q "$o" main feature "$PR_HEAD:refs/pull/7/head" "$PR_MERGE:refs/pull/7/merge" || return 1
	# GitHub serves any commit by id (actions/checkout fetches the merge commit by its sha)
	git -C "$o" config uploadpack.allowAnySHA1InWant true
	echo "$PR_BASE $PR_HEAD $PR_MERGE" >"$tmp/$name.shas"
}

# pr_use NAME: PR_BASE, PR_HEAD, PR_MERGE of the origin pr_origin NAME made.
pr_use() { read -r PR_BASE PR_HEAD PR_MERGE <"$tmp/$1.shas"; }

pr_event() {
	jq -n --arg b "$PR_BASE" --arg h "$PR_HEAD" --arg m "$PR_MERGE" --arg hr "${2:-octo/app}" '{
		action: "synchronize", number: 7,
		pull_request: { number: 7, title: "Move torch", merge_commit_sha: $m,
			head: { ref: "feature", sha: $h, repo: { full_name: $hr } },
			base: { ref: "main", sha: $b, repo: { full_name: "octo/app" } } },
		repository: { full_name: "octo/app" } }' >"$1"
}

gate_machine_build() {
	local d=$1
	loader_base "$d/drive_c" || return 1
	# the rest of the redistributable's DLLs (Wine's PE builds), for the hosted runner
	mkdir -p "$d/redist"
	for f in vcomp140 concrt140 msvcp140_1 msvcp140_2 msvcp140_atomic_wait; do
		cp "$WINE_PE/$f.dll" "$d/redist/" || return 1
	done
	# Visual Studio's copy, as on GitHub's windows images
	make_dll "$d/libomp140/libomp140.x86_64.dll" --export omp_get_max_threads --export omp_get_thread_num \
		--import KERNEL32.dll:GetLastError
}

# The cached Wine prefix of tests/lib/wine_registry.sh (built once for every
# test that reads it); prints its system.reg.
gate_wine_registry() {
	local pfx
	# shellcheck source=tests/lib/wine_registry.sh
	source "$TDC_REPO/tests/lib/wine_registry.sh" || return 1
	pfx=$(wine_registry_prefix 2>/dev/null) && echo "$pfx/system.reg"
}

gate_machine() {
	local kind=$1 d=$2 base reg
	base=$(FX_KEY=$(declare -f loader_base | sha256sum | cut -c1-16) fx_build gate_machine gate_machine_build) || return 1
	reg=$(gate_wine_registry) || return 1
	mkdir -p "$d"
	cp -R "$base/drive_c" "$d/drive_c"
	case "$kind" in
	hosted)
		cp "$base/libomp140/libomp140.x86_64.dll" "$base"/redist/*.dll "$d/drive_c/Windows/System32/"
		cp "$reg" "$d/system.reg"
		;;
	bare)
		# no redistributable: none of its DLLs in System32 ...
		rm -f "$d/drive_c/Windows/System32/"{vcruntime140,vcruntime140_1,msvcp140}.dll
		# ... and the same registry with every VC\Runtimes key (both views) taken out
		awk '/^\[/ { skip = ($0 ~ /\\\\VC\\\\Runtimes/) } !skip' "$reg" >"$d/system.reg"
		;;
	esac
}
