#!/usr/bin/env bash
# action/move-major.sh TAG COMMIT: the release workflow's last step. Moves
# the major tag (v1 for TAG v1.2.3) to COMMIT and pushes it to the remote
# (TDC_REMOTE, default origin), only forward: when the major tag already
# names a release newer than TAG (a backport v1.1.5 released after v1.2.0),
# it stays where it is, with a notice. The push is a compare-and-swap
# (--force-with-lease on the tag's old commit): a major tag another release
# moved meanwhile is not overwritten. Needs the repository's tags (checkout
# with fetch-depth: 0). Exit 0 when moved or rightly left, 2 on bad input,
# else git's failure.
set -euo pipefail
tag=${1:-} commit=${2:-}
remote=${TDC_REMOTE:-origin}
if ! [[ $tag =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || ! [[ $commit =~ ^[0-9a-f]{40}$ ]]; then
	echo "::error title=move-major::usage: move-major.sh vX.Y.Z COMMIT (40 hex digits)"
	exit 2
fi
major=${tag%%.*}
# Version order (sort -V) of two release tags: 0 when $1 is newer than $2.
newer() { [ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | tail -1)" = "$1" ]; }

old=$(git rev-parse -q --verify "refs/tags/$major^{commit}" || true)
if [ -n "$old" ]; then
	# the newest release tag of this major on the commit the major names now
	cur=$(git tag --points-at "$old" --list "$major.*" | grep -E '^v[0-9]+\.[0-9]+\.[0-9]+$' | sort -V | tail -1 || true)
	if [ -n "$cur" ] && newer "$cur" "$tag"; then
		echo "::notice title=move-major::$major stays at $cur: $tag is older (a backport); pin @$tag to use it"
		exit 0
	fi
	if [ "$old" = "$commit" ]; then
		echo "$major already at $tag ($commit)"
		exit 0
	fi
	echo "moving $major from ${cur:-$old} to $tag"
else
	echo "creating $major at $tag"
fi
git tag -f "$major" "$commit" >/dev/null
git push --force-with-lease="refs/tags/$major:$old" "$remote" "refs/tags/$major:refs/tags/$major"
