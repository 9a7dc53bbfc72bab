#!/usr/bin/env python3
"""sim_runner.py ACTION_DIR LOG_DIR [name=value ...]: runs a composite
action's steps the way the GitHub Actions runner does, on this machine.

- Inputs: defaults from action.yml, overridden by name=value arguments.
- Each step: `if:` evaluated; `env:` and `with:` expressions substituted
  (the forms this action uses: inputs.X, steps.ID.outputs.Y, and
  `A == 'literal'`; anything else is an error, so the simulation cannot
  silently drift from action.yml); `run:` written to a file and run with
  `bash --noprofile --norc -eo pipefail FILE` (the runner's bash template);
  a fresh $GITHUB_OUTPUT file per step, parsed afterwards (name=value and
  name<<DELIM forms) into steps.ID.outputs; one $GITHUB_STEP_SUMMARY.
- `uses:` steps whose `if:` holds cannot run here: reported as an error.
- After a failing step only steps whose `if:` calls always() or failure()
  run; the action's status is the first failure's.
The environment comes from the caller (GITHUB_ACTIONS, RUNNER_*, ...);
GITHUB_ACTION_PATH is ACTION_DIR. Prints one JSON document: steps (id,
name, skipped, rc), outputs (the action's), rc (the action's exit status).
Each step's stdout/stderr go to LOG_DIR/<n>.out and <n>.err.
"""
import json
import os
import re
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
    m = re.fullmatch(r"'([^']*)'", expr)
    if m:
        return m.group(1)
    m = re.fullmatch(r"(.+?)\s*==\s*(.+)", expr)
    if m:
        return value(m.group(1), ctx) == value(m.group(2), ctx)
    raise SystemExit("sim_runner: unsupported expression: " + expr)


TOKEN = re.compile(r"\s*(?:(?P<str>'[^']*')|(?P<op>==|!=|&&|\|\||!|\(|\))|(?P<fn>(?:always|success|failure)\(\))|(?P<ref>[A-Za-z_][A-Za-z0-9_.-]*))")


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


def truthy(v):
    return bool(v)  # as the runner: any non-empty string is true


def subst(s, ctx):
    return EXPR.sub(lambda m: str(value(m.group(1), ctx)), str(s))


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


def main():
    action_dir, log_dir = sys.argv[1], sys.argv[2]
    os.makedirs(log_dir, exist_ok=True)
    action = yaml.safe_load(open(os.path.join(action_dir, "action.yml")))
    inputs = {k: str(v.get("default", "")) for k, v in action.get("inputs", {}).items()}
    for a in sys.argv[3:]:
        k, v = a.split("=", 1)
        if k not in inputs:
            raise SystemExit("sim_runner: no input " + k)
        inputs[k] = v
    ctx = {"inputs": inputs, "steps": {}, "outcomes": {}, "failed": False}
    summary = os.environ.get("GITHUB_STEP_SUMMARY") or os.path.join(log_dir, "summary.md")
    result = {"steps": [], "outputs": {}, "rc": 0}
    failed = False
    for n, step in enumerate(action["runs"]["steps"]):
        rec = {"n": n, "id": step.get("id"), "name": step.get("name"), "skipped": False, "rc": 0}
        result["steps"].append(rec)
        ctx["failed"] = failed
        if not condition(step.get("if"), ctx):
            rec["skipped"] = True
            continue
        if "uses" in step:
            rec["rc"] = 99
            rec["error"] = "cannot run `uses: %s` in the simulation" % step["uses"]
            failed = True
            result["rc"] = 99
            continue
        if step.get("shell") != "bash":
            raise SystemExit("sim_runner: shell %r not simulated" % step.get("shell"))
        env = dict(os.environ)
        env.update({k: subst(v, ctx) for k, v in (step.get("env") or {}).items()})
        outfile = os.path.join(log_dir, "%d.github_output" % n)
        open(outfile, "w").close()
        script = os.path.join(log_dir, "%d.sh" % n)
        with open(script, "w") as f:
            f.write(step["run"])
        env.update({"GITHUB_ACTION_PATH": action_dir, "GITHUB_OUTPUT": outfile, "GITHUB_STEP_SUMMARY": summary})
        with open(os.path.join(log_dir, "%d.out" % n), "wb") as o, open(os.path.join(log_dir, "%d.err" % n), "wb") as e:
            rc = subprocess.call(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], env=env,
                                 stdout=o, stderr=e, stdin=subprocess.DEVNULL, cwd=env.get("GITHUB_WORKSPACE"))
        rec["rc"] = rc
        if step.get("id"):
            ctx["steps"][step["id"]] = parse_output_file(outfile)
            ctx["outcomes"][step["id"]] = "success" if rc == 0 else "failure"
        if rc != 0 and not failed:
            failed = True
            result["rc"] = rc
    for k, v in action.get("outputs", {}).items():
        result["outputs"][k] = subst(v["value"], ctx)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
