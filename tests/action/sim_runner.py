#!/usr/bin/env python3
"""sim_runner.py ACTION_DIR LOG_DIR [name=value ...]: runs a composite
action's steps the way the GitHub Actions runner does, on this machine.
sim_runner.py --workflow FILE [--job ID] [--machine-root DIR] ACTION_DIR
LOG_DIR: runs one job of a workflow that uses the action, checkout and
SARIF upload included (workflow_main below).

- Inputs: defaults from action.yml, overridden by name=value arguments.
- Each step: `if:` evaluated (with hashFiles(): empty when no workspace file matches); `env:` and `with:` expressions substituted
  (the forms this action uses: inputs.X, steps.ID.outputs.Y, and
  `A == 'literal'`; anything else is an error, so the simulation cannot
  silently drift from action.yml); `run:` written to a file and run with
  `bash --noprofile --norc -eo pipefail FILE` (the runner's bash template);
  a fresh $GITHUB_OUTPUT file per step, parsed afterwards (name=value and
  name<<DELIM forms) into steps.ID.outputs; one $GITHUB_STEP_SUMMARY.
- `uses: actions/cache@...` (path, key): restored from and saved to the
  folder SIM_ACTIONS_CACHE, the simulated cache service (sim_cache below);
  other `uses:` steps whose `if:` holds cannot run here: an error.
- After a failing step only steps whose `if:` calls always() or failure()
  run; the action's status is the first failure's.
The environment comes from the caller (GITHUB_ACTIONS, RUNNER_*, ...);
GITHUB_ACTION_PATH is ACTION_DIR. Prints one JSON document: steps (id,
name, skipped, rc), outputs (the action's), rc (the action's exit status).
Each step's stdout/stderr go to LOG_DIR/<n>.out and <n>.err.
"""
import fnmatch
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

import yaml

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def value(expr, ctx):
    expr = expr.strip()
    m = re.fullmatch(r"inputs\.([A-Za-z0-9_-]+)", expr)
    if m:
        return ctx["inputs"][m.group(1)]
    m = re.fullmatch(r"steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)", expr)
    if m:
        return ctx["steps"].get(m.group(1), {}).get(m.group(2), "")
    m = re.fullmatch(r"github\.([A-Za-z0-9_.-]+)", expr)
    if m and "github" in ctx:
        v = ctx["github"]
        for part in m.group(1).split("."):
            v = v.get(part, "") if isinstance(v, dict) else ""
        return v if isinstance(v, str) else json.dumps(v) if v != "" else ""
    m = re.fullmatch(r"'([^']*)'", expr)
    if m:
        return m.group(1)
    m = re.fullmatch(r"(.+?)\s*==\s*(.+)", expr)
    if m:
        return value(m.group(1), ctx) == value(m.group(2), ctx)
    raise SystemExit("sim_runner: unsupported expression: " + expr)


TOKEN = re.compile(r"\s*(?:(?P<str>'[^']*')|(?P<op>==|!=|&&|\|\||!|\(|\))|(?P<fn>(?:always|success|failure)\(\))|(?P<hf>hashFiles\('[^']*'\))|(?P<ref>[A-Za-z_][A-Za-z0-9_.-]*))")


def evaluate(expr, ctx):
    """The `if:` expression language as far as action.yml uses it: references
    (inputs.X, steps.ID.outputs.Y, steps.ID.outcome), '...' strings, ==, !=,
    !, &&, || and parentheses, always() / success() / failure(). Like the
    runner, an expression without a status function means success() && (...)."""
    toks, pos, expr = [], 0, expr.strip()
    while pos < len(expr):
        m = TOKEN.match(expr, pos)
        if not m or m.end() == pos:
            raise SystemExit("sim_runner: unsupported expression: " + expr)
        pos = m.end()
        toks.append((m.lastgroup, m.group(m.lastgroup)))
    i = 0

    def peek():
        return toks[i][1] if i < len(toks) else None

    def take():
        nonlocal i
        i += 1
        return toks[i - 1]

    def primary():
        kind, v = take()
        if v == "(":
            r = disj()
            take()
            return r
        if v == "!":
            return not truthy(primary())
        if kind == "str":
            return v[1:-1]
        if kind == "fn":
            return {"always()": True, "success()": not ctx["failed"], "failure()": ctx["failed"]}[v]
        if kind == "hf":
            return hash_files(v[len("hashFiles('"):-2], ctx)
        m = re.fullmatch(r"steps\.([A-Za-z0-9_-]+)\.outcome", v)
        if m:
            return ctx["outcomes"].get(m.group(1), "")
        return value(v, ctx)

    def comparison():
        left = primary()
        while peek() in ("==", "!="):
            op = take()[1]
            right = primary()
            left = (left == right) if op == "==" else (left != right)
        return left

    def conj():
        r = comparison()
        while peek() == "&&":
            take()
            right = comparison()
            r = r if not truthy(r) else right
        return r

    def disj():
        r = conj()
        while peek() == "||":
            take()
            right = conj()
            r = r if truthy(r) else right
        return r

    result = truthy(disj())
    if not any(k == "fn" for k, _ in toks):
        result = result and not ctx["failed"]
    return result


def hash_files(pattern, ctx):
    """hashFiles('PATTERN'): '' when no file under the workspace matches,
    else a SHA-256 over the matching files (the runner's value differs; only
    whether it is empty matters to a workflow's if:)."""
    ws = (ctx.get("github") or {}).get("workspace") or os.getcwd()
    h, n = hashlib.sha256(), 0
    for f in sorted(glob.glob(os.path.join(ws, pattern), recursive=True)):
        if os.path.isfile(f):
            h.update(hashlib.sha256(open(f, "rb").read()).digest())
            n += 1
    return h.hexdigest() if n else ""


def truthy(v):
    return bool(v)  # as the runner: any non-empty string is true


def text(v):
    """An expression's value as the runner writes it into a string: booleans as true/false."""
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def subst(s, ctx):
    return EXPR.sub(lambda m: text(value(m.group(1), ctx)), str(s))


def condition(s, ctx):
    if s is None:
        return not ctx["failed"]
    m = EXPR.fullmatch(str(s).strip())
    return evaluate(m.group(1) if m else str(s), ctx)


def parse_output_file(path):
    out, lines, i = {}, open(path, encoding="utf-8").read().split("\n"), 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            vals, i = [], i + 1
            while i < len(lines) and lines[i] != delim:
                vals.append(lines[i])
                i += 1
            if i == len(lines):
                raise SystemExit("sim_runner: unterminated output " + name)
            out[name] = "\n".join(vals)
        elif "=" in line:
            name, val = line.split("=", 1)
            out[name] = val
        i += 1
    return out


# SIM_CHROOT=ROOT: the runner is the machine in ROOT (a Debian root made
# with mmdebstrap): every `run:` step runs inside it (chroot, its own mount
# and pid namespace with /proc), with the runner's variables, the step's
# env: and the root's own PATH and HOME, nothing else of this machine's
# environment. Paths under ROOT given to the simulation (ACTION_DIR,
# LOG_DIR, RUNNER_*, GITHUB_*) are seen inside as the same paths without
# the ROOT prefix; paths steps write into outputs are the root's.
CHROOT = os.environ.get("SIM_CHROOT", "").rstrip("/")


def inside(p):
    """A path of this machine as the chroot sees it."""
    return p[len(CHROOT):] if CHROOT and isinstance(p, str) and p.startswith(CHROOT + "/") else p


def outside(p):
    """A path the chroot named (an output) as this machine sees it."""
    return CHROOT + p if CHROOT and p.startswith("/") and not p.startswith(CHROOT + "/") else p


def run_bash(script_text, env, log_dir, n, ctx, cwd, step_env=None):
    """One `run:` step as the runner runs it with `shell: bash`: the script in
    a file, `bash --noprofile --norc -eo pipefail FILE`, a fresh GITHUB_OUTPUT
    parsed afterwards. Returns (rc, outputs)."""
    outfile = os.path.join(log_dir, "%d.github_output" % n)
    open(outfile, "w").close()
    script = os.path.join(log_dir, "%d.sh" % n)
    with open(script, "w") as f:
        f.write(script_text)
    env = dict(env, GITHUB_OUTPUT=outfile)
    cmd = ["bash", "--noprofile", "--norc", "-eo", "pipefail", script]
    if CHROOT:
        keep = {k: v for k, v in env.items() if k.startswith(("GITHUB_", "RUNNER_", "CI"))}
        keep.update(step_env or {})
        keep.update(GITHUB_OUTPUT=outfile, PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                    HOME="/root", LANG="C.UTF-8")
        env = {k: inside(v) for k, v in keep.items()}
        cmd = ["unshare", "--mount", "--pid", "--fork", "--mount-proc=%s/proc" % CHROOT, "chroot", CHROOT,
               "/bin/sh", "-c", 'cd "$1" 2>/dev/null || cd /; shift; exec "$@"', "sh", inside(cwd or "/")] + \
            [inside(c) for c in cmd]
        cwd = None
    with open(os.path.join(log_dir, "%d.out" % n), "wb") as o, open(os.path.join(log_dir, "%d.err" % n), "wb") as e:
        rc = subprocess.call(cmd, env=env, stdout=o, stderr=e, stdin=subprocess.DEVNULL, cwd=cwd)
    return rc, parse_output_file(outfile)


def run_action(action_dir, log_dir, given, base_env, summary):
    """The composite action at ACTION_DIR with the inputs GIVEN (name -> value;
    an undeclared name is an error). Returns {steps, outputs, rc}."""
    os.makedirs(log_dir, exist_ok=True)
    action = yaml.safe_load(open(os.path.join(action_dir, "action.yml")))
    inputs = {k: str(v.get("default", "")) for k, v in action.get("inputs", {}).items()}
    for k, v in given.items():
        if k not in inputs:
            raise SystemExit("sim_runner: no input " + k)
        inputs[k] = str(v)
    ctx = {"inputs": inputs, "steps": {}, "outcomes": {}, "failed": False}
    result = {"steps": [], "outputs": {}, "rc": 0}
    failed = False
    post = []  # post steps (actions/cache's save), run after the action's steps
    path_file = os.path.join(log_dir, "github_path")  # GITHUB_PATH: one folder per line, for later steps
    if not os.path.exists(path_file):
        open(path_file, "w").close()
    result["github_path"] = path_file
    for n, step in enumerate(action["runs"]["steps"]):
        rec = {"n": n, "id": step.get("id"), "name": step.get("name"), "skipped": False, "rc": 0}
        result["steps"].append(rec)
        ctx["failed"] = failed
        if not condition(step.get("if"), ctx):
            rec["skipped"] = True
            continue
        if "uses" in step and step["uses"].startswith(("actions/cache@", "actions/cache/restore@",
                                                          "actions/cache/save@")):
            with_ = {k: subst(v, ctx) for k, v in (step.get("with") or {}).items()}
            outs = sim_cache(with_, base_env, post, step["uses"].split("@")[0])
            rec["cache-hit"] = outs.get("cache-hit")
            if step.get("id"):
                ctx["steps"][step["id"]] = outs
                ctx["outcomes"][step["id"]] = "success"
            continue
        if "uses" in step:
            rec["rc"] = 99
            rec["error"] = "cannot run `uses: %s` in the simulation" % step["uses"]
            failed = True
            result["rc"] = 99
            continue
        if step.get("shell") != "bash":
            raise SystemExit("sim_runner: shell %r not simulated" % step.get("shell"))
        env = dict(base_env)
        step_env = {k: subst(v, ctx) for k, v in (step.get("env") or {}).items()}
        env.update(step_env)
        env.update({"GITHUB_ACTION_PATH": action_dir, "GITHUB_STEP_SUMMARY": summary, "GITHUB_PATH": path_file})
        added = [l for l in open(path_file).read().split("\n") if l]
        if added:  # what earlier steps added to GITHUB_PATH comes first, the latest first
            env["PATH"] = os.pathsep.join(list(reversed(added)) + [env.get("PATH", "")])
        rc, outs = run_bash(step["run"], env, log_dir, n, ctx, env.get("GITHUB_WORKSPACE"), step_env)
        rec["rc"] = rc
        if step.get("id"):
            ctx["steps"][step["id"]] = outs
            ctx["outcomes"][step["id"]] = "success" if rc == 0 else "failure"
        if rc != 0 and not failed:
            failed = True
            result["rc"] = rc
    for k, v in action.get("outputs", {}).items():
        result["outputs"][k] = subst(v["value"], ctx)
    for fn in post:  # actions/cache's post step runs only for a job that succeeded (post-if: success())
        if result["rc"] == 0:
            fn()
    return result


def sim_cache(with_, env, post, which="actions/cache"):
    """actions/cache: on an exact match of `key` in the store (the folder
    SIM_ACTIONS_CACHE, one entry per key) `path` is restored from it and
    cache-hit is 'true'; else cache-hit is 'false' and the post step (run
    after the action's steps; on GitHub at the job's end) saves `path`
    under the key if `path` exists then and the job succeeded (its
    post-if: success()). actions/cache/restore restores only; actions/cache/save
    saves at once (an existing key is kept, as the service keeps it). Keys
    are refused as the service refuses them (a comma, over 512 characters).
    File modes are kept (the real action tars the folder)."""
    store = env.get("SIM_ACTIONS_CACHE")
    if not store:
        raise SystemExit("sim_runner: actions/cache needs SIM_ACTIONS_CACHE (the simulated cache service)")
    unsupported = set(with_) - {"path", "key"}
    if unsupported:
        raise SystemExit("sim_runner: actions/cache inputs %s not simulated" % sorted(unsupported))
    key, path = with_.get("key", ""), outside(with_.get("path", ""))
    if not key or not path or "," in key or len(key) > 512 or "\n" in path:
        raise SystemExit("sim_runner: actions/cache: bad key %r or path %r" % (key, path))
    entry = os.path.join(store, hashlib.sha256(key.encode()).hexdigest()[:32])
    if which == "actions/cache/save":
        if not os.path.isdir(path):
            raise SystemExit("sim_runner: actions/cache/save: %s does not exist" % path)
        if not os.path.isdir(entry):
            tmp = entry + ".tmp"
            shutil.copytree(path, os.path.join(tmp, "data"), symlinks=True)
            with open(os.path.join(tmp, "key"), "w") as f:  # what the service lists
                f.write(key)
            os.rename(tmp, entry)
        return {}
    if os.path.isdir(entry):
        if os.path.isdir(path):
            shutil.rmtree(path)
        shutil.copytree(os.path.join(entry, "data"), path, symlinks=True)
        return {"cache-hit": "true"}

    def save():
        if os.path.isdir(path) and not os.path.isdir(entry):
            tmp = entry + ".tmp"
            shutil.copytree(path, os.path.join(tmp, "data"), symlinks=True)
            with open(os.path.join(tmp, "key"), "w") as f:
                f.write(key)
            os.rename(tmp, entry)
    if which == "actions/cache":
        post.append(save)
    return {"cache-hit": "false"}


def github_context(env):
    """The `github` context as far as workflows use it here: from the
    runner's environment and the event payload."""
    ev = {}
    if env.get("GITHUB_EVENT_PATH") and os.path.isfile(env["GITHUB_EVENT_PATH"]):
        ev = json.load(open(env["GITHUB_EVENT_PATH"]))
    keys = ["workspace", "event_name", "sha", "ref", "repository", "run_id", "server_url", "workflow_ref"]
    g = {k: env.get("GITHUB_" + k.upper(), "") for k in keys}
    g["event"] = ev
    return g


def triggered(wf, event, ref):
    """Whether the workflow's `on:` runs for EVENT on REF (GITHUB_REF). The
    `branches` filter of a push is simulated (names and fnmatch globs; a
    pull_request's would need its base branch: refused); path filters are
    not: a workflow using them is refused, never half-run."""
    on = wf.get("on", wf.get(True))  # PyYAML reads the key `on` as True
    if isinstance(on, str):
        return on == event
    if isinstance(on, list):
        return event in on
    if isinstance(on, dict) and event in on:
        filt = on[event] or {}
        unsupported = set(filt) - {"types"} - ({"branches"} if event == "push" else set())
        if unsupported:
            raise SystemExit("sim_runner: `on.%s` filters %s not simulated" % (event, sorted(unsupported)))
        if "branches" in filt:
            branch = ref[len("refs/heads/"):] if ref.startswith("refs/heads/") else None
            return branch is not None and any(fnmatch.fnmatchcase(branch, b) for b in filt["branches"])
        return True
    return False


def git(*args, cwd=None):
    r = subprocess.run(["git"] + list(args), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError("git %s: %s" % (" ".join(args), r.stderr.strip()))
    return r.stdout.strip()


def sim_checkout(with_, env, log):
    """actions/checkout@v7 for a pull_request or push event, as its git
    commands do it: init the workspace, fetch from SIM_ORIGIN (the simulated
    GitHub repository, a git URL) — with fetch-depth 0 every branch and tag
    and then the PR's merge commit, else only GITHUB_SHA at that depth — and
    check the commit out (detached at refs/remotes/pull/N/merge for a PR; a
    pushed branch as a local branch of that name).
    Returns the exit status; the git commands go to LOG."""
    unsupported = set(with_) - {"fetch-depth"}
    if unsupported:
        raise SystemExit("sim_runner: actions/checkout inputs %s not simulated" % sorted(unsupported))
    depth = int(with_.get("fetch-depth", 1))
    ws, origin, sha, ref = env["GITHUB_WORKSPACE"], env["SIM_ORIGIN"], env["GITHUB_SHA"], env["GITHUB_REF"]
    local = "refs/remotes/pull/%s" % ref[len("refs/pull/"):] if ref.startswith("refs/pull/") else \
        "refs/remotes/origin/" + ref[len("refs/heads/"):]
    try:
        for name in os.listdir(ws):  # checkout empties the workspace first
            p = os.path.join(ws, name)
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p)
            else:
                os.unlink(p)
        git("init", "-q", ws)
        git("remote", "add", "origin", origin, cwd=ws)
        fetch = ["-c", "protocol.version=2", "fetch", "--prune", "--no-recurse-submodules", "-q"]
        if depth == 0:
            git(*fetch, "origin", "+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*", cwd=ws)
            git(*fetch, "origin", "+%s:%s" % (sha, local), cwd=ws)
        else:
            git(*fetch, "--no-tags", "--depth=%d" % depth, "origin", "+%s:%s" % (sha, local), cwd=ws)
        if ref.startswith("refs/heads/"):  # a branch: checked out as a local branch
            git("checkout", "-q", "--force", "-B", ref[len("refs/heads/"):], local, cwd=ws)
        else:
            git("checkout", "-q", "--force", local, cwd=ws)
        log.write(("checked out %s at %s (fetch-depth %d)\n" % (local, sha, depth)).encode())
        return 0
    except RuntimeError as e:
        log.write((str(e) + "\n").encode())
        return 1


def sim_upload_sarif(with_, env, perms, log, here):
    """github/codeql-action/upload-sarif@v4: the upload needs the job's token
    to hold security-events: write, and GitHub refuses a file that is not
    SARIF 2.1.0 or has a result without a repository location. Validated with
    tests/report/validate_sarif.py --github against the schema SIM_SARIF_SCHEMA."""
    if perms is not None and perms.get("security-events") != "write":
        log.write(b"Resource not accessible by integration (the job lacks permissions: security-events: write)\n")
        return 1
    f = with_.get("sarif_file", "../results")
    path = f if os.path.isabs(f) else os.path.join(env["GITHUB_WORKSPACE"], f)
    if not os.path.isfile(path):
        log.write(("Path does not exist: %s\n" % f).encode())
        return 1
    r = subprocess.run([sys.executable, os.path.join(here, "..", "report", "validate_sarif.py"),
                        env["SIM_SARIF_SCHEMA"], path, "--github"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    log.write(r.stdout)
    return r.returncode


def workflow_main(argv):
    """--workflow FILE [--job ID] [--machine-root DIR] ACTION_DIR LOG_DIR:
    runs one job of a workflow as the runner would for the event in the
    environment (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_SHA,
    GITHUB_REF, GITHUB_WORKSPACE; SIM_ORIGIN the repository checkout fetches
    from; SIM_SARIF_SCHEMA the SARIF 2.1.0 schema). `uses:` steps: actions/
    checkout and github/codeql-action/upload-sarif simulated (above); this
    action (torch-dll-check/torch-dll-check@REF or ./) run from ACTION_DIR;
    anything else is an error. --machine-root DIR: this simulated runner is
    Linux, so the Windows machine the workflow expects is the offline tree
    DIR: this action's `scan` input is DIR unless the workflow sets scan.
    Prints {job, runs_on, permissions, steps (each composite's own steps
    under "action"), rc, uploads}."""
    opts = {"--job": None, "--machine-root": None}
    wf_path = argv[0]
    rest = argv[1:]
    while rest and rest[0] in opts:
        opts[rest[0]] = rest[1]
        rest = rest[2:]
    action_dir, log_dir = rest[0], rest[1]
    os.makedirs(log_dir, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    wf = yaml.safe_load(open(wf_path))
    env0 = dict(os.environ)
    event = env0.get("GITHUB_EVENT_NAME", "")
    if not triggered(wf, event, env0.get("GITHUB_REF", "")):
        raise SystemExit("sim_runner: %s does not run on %r" % (wf_path, event))
    jobs = wf["jobs"]
    job_id = opts["--job"] or (list(jobs)[0] if len(jobs) == 1 else None)
    if job_id not in jobs:
        raise SystemExit("sim_runner: say which job (--job): %s" % ", ".join(jobs))
    job = jobs[job_id]
    if "if" in job or "strategy" in job or "needs" in job:
        raise SystemExit("sim_runner: job-level if/strategy/needs not simulated")
    perms = job.get("permissions", wf.get("permissions"))
    summary = env0.get("GITHUB_STEP_SUMMARY") or os.path.join(log_dir, "summary.md")
    ctx = {"inputs": {}, "steps": {}, "outcomes": {}, "failed": False, "github": github_context(env0)}
    env_job = dict(env0)
    env_job.update({k: str(v) for k, v in (wf.get("env") or {}).items()})
    env_job.update({k: str(v) for k, v in (job.get("env") or {}).items()})
    result = {"job": job_id, "runs_on": job.get("runs-on"), "permissions": perms, "steps": [], "rc": 0,
              "uploads": []}
    failed = False
    for n, step in enumerate(job["steps"]):
        rec = {"n": n, "id": step.get("id"), "name": step.get("name"), "uses": step.get("uses"),
               "skipped": False, "rc": 0}
        result["steps"].append(rec)
        ctx["failed"] = failed
        if not condition(step.get("if"), ctx):
            rec["skipped"] = True
            continue
        env = dict(env_job)
        env.update({k: subst(v, ctx) for k, v in (step.get("env") or {}).items()})
        with_ = {k: subst(v, ctx) for k, v in (step.get("with") or {}).items()}
        outs = {}
        uses = step.get("uses", "")
        if "run" in step:
            if step.get("shell", (job.get("defaults") or {}).get("run", {}).get("shell")) != "bash":
                raise SystemExit("sim_runner: step %d: only `shell: bash` is simulated" % n)
            env["GITHUB_STEP_SUMMARY"] = summary
            rc, outs = run_bash(subst(step["run"], ctx), env, log_dir, n, ctx, env.get("GITHUB_WORKSPACE"))
        elif uses.startswith("actions/checkout@"):
            with open(os.path.join(log_dir, "%d.out" % n), "wb") as log:
                rc = sim_checkout(with_, env, log)
        elif uses.startswith("github/codeql-action/upload-sarif@"):
            with open(os.path.join(log_dir, "%d.out" % n), "wb") as log:
                rc = sim_upload_sarif(with_, env, perms, log, here)
            result["uploads"].append({"sarif_file": with_.get("sarif_file"), "category": with_.get("category"),
                                      "rc": rc})
        elif uses.startswith("torch-dll-check/torch-dll-check@") or uses == "./":
            if opts["--machine-root"] and "scan" not in with_:
                with_["scan"] = opts["--machine-root"]
            sub = run_action(action_dir, os.path.join(log_dir, str(n)), with_, env, summary)
            rec["action"] = sub
            rc, outs = sub["rc"], sub["outputs"]
        else:
            rc = 99
            rec["error"] = "cannot run `uses: %s` in the simulation" % uses
        rec["rc"] = rc
        if step.get("id"):
            ctx["steps"][step["id"]] = outs
            ctx["outcomes"][step["id"]] = "success" if rc == 0 else "failure"
        if rc != 0 and not failed:
            failed = True
            result["rc"] = rc
    print(json.dumps(result, indent=1))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--workflow":
        return workflow_main(sys.argv[2:])
    action_dir, log_dir = sys.argv[1], sys.argv[2]
    given = {}
    for a in sys.argv[3:]:
        k, v = a.split("=", 1)
        given[k] = v
    summary = os.environ.get("GITHUB_STEP_SUMMARY") or os.path.join(log_dir, "summary.md")
    print(json.dumps(run_action(action_dir, log_dir, given, dict(os.environ), summary), indent=1))


if __name__ == "__main__":
    main()
