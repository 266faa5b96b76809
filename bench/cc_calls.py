#!/usr/bin/env python3
"""What a tool call costs through real Claude Code, ccbridge beside the peers a user would pick.

    python bench/cc_calls.py [--versions 2.1.332,2.1.335] [--rounds 5] [--calls 20]
                             [--dippy DIR] [--ccbridge PATH] [--against PATH] [--quick]
                             [--out FILE]

One scripted session per case and round: the loopback model stand-in (tests/e2e/model_stub.py)
asks for `Bash(true)` CALLS times, and Claude Code runs each call with the case's hooks. The
wall figure of a call is the time between two requests of the session to the model: the model's
answer, Claude Code running the tool and its hooks, and the next request, so Claude Code's own
start-up and the session's first and last turns are left out; a case's figure is the median
over all its calls. The CPU figure is the session's CPU time (Claude Code and every process it
waited for: the hooks and theirs, and what a hook left running until the session ended, such as
ccbridge's warm server, which the bench adopts as child subreaper; the bench's RUSAGE_CHILDREN)
divided by the calls, median over
the rounds: on a loaded machine every start waits for a core, which stretches the wall figure of
each case that starts processes, while its CPU time hardly moves with the load. Rounds are
interleaved (every case once per round, the order rotating).

Cases, each in a project of its own holding the user's hook (a PreToolUse script that reads the
event and says nothing) unless said otherwise:
  no hooks                  an empty settings file
  user hook                 the user's hook alone
  user hook + sandbox       the user's hook and the sandbox settings ccbridge's install writes,
                            without ccbridge (what the wall itself costs: Claude Code's)
  ccbridge --no-sandbox     `ccbridge install --project --no-sandbox` run in the project
  ccbridge (wall)           `ccbridge install --project`, the default
  cc-safety-net             its npm package (`npm install`), its Claude Code hook
                            (`cc-safety-net hook --claude-code`, matcher Bash) beside the user's
  Dippy                     a Dippy checkout (--dippy: a work tree or a bare git directory, its
                            HEAD), its hook (`bin/dippy-hook`, matcher Bash) beside the user's,
                            as its README says for a manual install

ccbridge is installed as a user would (a clean virtual environment, a normal pip install of this
checkout: bench/run.py's `make_venv`) unless --ccbridge names an executable; --against names
another (an earlier commit installed the same way), installed `--no-sandbox` in a case of its
own, so that a change is timed against what it changes in the same rounds. A peer that cannot
be obtained is left out, and the reason printed. Every session must end with each call run and
none refused (Dippy approves `true`; the others say nothing), or the run fails: a broken case is
reported, not timed.
"""

from __future__ import annotations

import argparse
import ctypes
import itertools
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent
sys.path[:0] = [str(CHECKOUT), str(HERE)]

import run as suite  # noqa: E402 (bench/run.py: the clean environment)

from tests.e2e import harness  # noqa: E402
from tests.e2e.model_stub import ModelStub, Turn  # noqa: E402

USER_HOOK = (
    "#!/bin/sh\n# The user's own PreToolUse hook: reads the event, no opinion.\ncat >/dev/null\n"
)
SAFETY_NET = "cc-safety-net"
SESSION_TIMEOUT = 300.0
AGAINST = "ccbridge --no-sandbox, --against"  # the case of the other ccbridge


class CaseError(RuntimeError):
    """A case did not behave as it should; its timing would be meaningless."""


class TimedStub(ModelStub):
    """The model stand-in, noting when each request that offers tools arrived."""

    def __init__(self, script: Sequence[Turn]) -> None:
        super().__init__(script)
        self.arrivals: list[float] = []
        self._arrivals_lock = threading.Lock()

    def answer(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        if body.get("tools"):
            with self._arrivals_lock:
                self.arrivals.append(time.perf_counter())
        return super().answer(path, body)


@dataclass
class Case:
    name: str
    project: Path
    home: Path
    env: dict[str, str] = field(default_factory=dict)
    gaps: dict[str, list[float]] = field(default_factory=dict)  # per Claude Code version
    cpu: dict[str, list[float]] = field(default_factory=dict)  # per session, per call


def write_json(path: Path, data: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def hook_group(command: str, matcher: str | None = None) -> dict[str, Any]:
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": command}]}
    if matcher is not None:
        group["matcher"] = matcher
    return group


def user_settings(project: Path, *extra: dict[str, Any]) -> dict[str, Any]:
    hook = project / ".claude" / "hooks" / "user-hook.sh"
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text(USER_HOOK, encoding="utf-8")
    hook.chmod(0o755)
    return {"hooks": {"PreToolUse": [hook_group(str(hook)), *extra]}}


def settings_file(project: Path) -> Path:
    return project / ".claude" / "settings.json"


def new_case(work: Path, name: str, env: Mapping[str, str]) -> Case:
    slug = "".join(c if c.isalnum() else "-" for c in name).strip("-")
    root = work / "cases" / slug
    project, home = root / "project", root / "home"
    project.mkdir(parents=True)
    home.mkdir(parents=True)
    case_env = {
        "CCBRIDGE_STATE_DIR": str(root / "state"),
        "CCBRIDGE_CACHE_DIR": str(root / "cache"),
        "PATH": env.get("PATH", os.defpath),
    }
    return Case(name, project, home, case_env)


def install_ccbridge(case: Case, ccbridge: str, *options: str) -> None:
    write_json(settings_file(case.project), user_settings(case.project))
    done = subprocess.run(
        [ccbridge, "install", "--project", *options],
        cwd=case.project,
        env={**clean_env(), "HOME": str(case.home), **case.env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        raise CaseError(f"{case.name}: ccbridge install failed: {done.stdout}{done.stderr}")


def clean_env() -> dict[str, str]:
    """This environment minus ccbridge's, Claude Code's and Python's variables."""
    return {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("CCBRIDGE_", "CLAUDE_", "PYTHON"))
    }


def sandbox_alone(case: Case, walled: Case) -> None:
    """The user's hook and the walled case's sandbox settings and deny rules, no ccbridge."""
    installed = json.loads(settings_file(walled.project).read_text(encoding="utf-8"))
    settings = user_settings(case.project)
    for key in ("sandbox", "permissions"):
        if key in installed:
            settings[key] = installed[key]
    write_json(settings_file(case.project), settings)


def safety_net(work: Path) -> str:
    """The path of cc-safety-net's command, from its npm package installed under `work`."""
    npm = shutil.which("npm")
    if npm is None:
        raise CaseError("npm is not on PATH")
    prefix = work / "npm"
    done = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--prefix", str(prefix), SAFETY_NET],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    command = prefix / "node_modules" / ".bin" / SAFETY_NET
    if done.returncode != 0 or not command.exists():
        raise CaseError(f"npm install {SAFETY_NET} failed: {done.stdout}{done.stderr}")
    return str(command)


def dippy(work: Path, source: Path) -> str:
    """The path of Dippy's hook in a work tree, checked out from `source` if it is a bare git
    directory."""
    if (source / "bin" / "dippy-hook").is_file():
        return str(source / "bin" / "dippy-hook")
    tree = work / "dippy"
    tree.mkdir()
    archive = subprocess.run(
        ["git", f"--git-dir={source}", "archive", "HEAD"], capture_output=True, check=False
    )
    if archive.returncode != 0:
        raise CaseError(f"{source} is neither a Dippy work tree nor a git directory")
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    hook = tree / "bin" / "dippy-hook"
    if not hook.is_file():
        raise CaseError(f"{source} holds no bin/dippy-hook")
    return str(hook)


def adopt_orphans() -> None:
    """Make this process the child subreaper of what it starts: a process a hook leaves running
    (ccbridge's warm server) is reparented here, not to init, so that its CPU time, reaped by
    `reap_adopted`, counts in the session's RUSAGE_CHILDREN as a hook's own does."""
    pr_set_child_subreaper = 36
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(pr_set_child_subreaper, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")


def reap_adopted(within: float = 15.0) -> None:
    """Wait for the processes a session left running (they end with Claude Code) and reap
    them; one still running after `within` seconds fails the run."""
    until = time.monotonic() + within
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return  # no child left
        if pid == 0:
            if time.monotonic() > until:
                raise CaseError("a process the session left running did not end with it")
            time.sleep(0.02)


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def session(binary: Path, case: Case, calls: int) -> tuple[list[float], float]:
    """One scripted session of `calls` Bash(true) calls: the gaps between its model requests,
    and the CPU time of Claude Code and every process it waited for (its hooks and theirs, and
    what they left running until it ended)."""
    script = [Turn.bash("true") for _ in range(calls)] + [Turn.say("done")]
    project = case.project.resolve()
    harness.trust_project(case.home, project)
    with TimedStub(script) as stub:
        env = {**harness.offline_env(case.home, stub.base_url), **case.env}
        before = children_cpu()
        done = subprocess.run(
            [str(binary), "-p", "Do the task.", "--output-format", "json"],
            cwd=project,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=SESSION_TIMEOUT,
            check=False,
        )
        reap_adopted()
        cpu = children_cpu() - before
        results = stub.transcript.tool_results()
        arrivals = list(stub.arrivals)
    refused = [r.content for r in results if r.is_error]
    if done.returncode != 0 or len(results) != calls or refused:
        raise CaseError(
            f"{case.name}: expected {calls} calls run, got {len(results)} "
            f"(exit {done.returncode}; refused: {refused[:1]}; {done.stderr[-400:]})"
        )
    # arrivals[0] is the prompt; arrivals[i] (i >= 1) follows call i. The first call also pays
    # the hooks' first start (cold caches), so the gaps from the second call on are kept.
    gaps = [later - earlier for earlier, later in itertools.pairwise(arrivals[1:])]
    return gaps, cpu


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text(encoding="utf-8").split()[:3])
    except OSError:
        return "unknown"


def table(cases: Sequence[Case], versions: Sequence[str]) -> list[str]:
    """Markdown rows: per-call median, and the added cost over the baseline each case is
    judged against (no hooks for the user's hook; the user's hook for every other case; the
    sandbox alone for ccbridge with the wall)."""
    by_name = {case.name: case for case in cases}
    against = {
        "user hook": "no hooks",
        "user hook + sandbox": "user hook",
        "ccbridge (wall)": "user hook + sandbox",
    }
    header = ["case", "judged against"]
    for v in versions:
        header += [f"{v}: wall per call", f"{v}: wall added", f"{v}: CPU added"]
    rows = ["| " + " | ".join(header) + " |", "|---|---" + "|---:" * (3 * len(versions)) + "|"]
    for case in cases:
        base_name = against.get(case.name, "user hook" if case.name != "no hooks" else "")
        base = by_name.get(base_name)
        cells = [case.name, base_name or "-"]
        for v in versions:
            wall = statistics.median(case.gaps[v]) * 1000
            cpu = statistics.median(case.cpu[v]) * 1000
            cells.append(f"{wall:.1f} ms")
            if base is None:
                cells += ["", ""]
                continue
            cells.append(f"{wall - statistics.median(base.gaps[v]) * 1000:+.1f} ms")
            cells.append(f"{cpu - statistics.median(base.cpu[v]) * 1000:+.1f} ms")
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def prepare(
    work: Path, args: argparse.Namespace, env: Mapping[str, str]
) -> tuple[list[Case], list[str]]:
    ccbridge = args.ccbridge or suite.make_venv(work, env).ccbridge
    # A project file's registration finds ccbridge on PATH, as a user's shell would.
    env = {**env, "PATH": os.pathsep.join([str(Path(ccbridge).parent), env.get("PATH", "")])}
    cases: list[Case] = []
    skipped: list[str] = []

    none = new_case(work, "no hooks", env)
    write_json(settings_file(none.project), {})
    user = new_case(work, "user hook", env)
    write_json(settings_file(user.project), user_settings(user.project))
    cases += [none, user]

    bare = new_case(work, "ccbridge --no-sandbox", env)
    install_ccbridge(bare, ccbridge, "--no-sandbox")
    if args.against:  # another ccbridge (an earlier commit's install), in the same rounds
        found = os.pathsep.join([str(Path(args.against).parent), env.get("PATH", "")])
        other = new_case(work, AGAINST, {**env, "PATH": found})
        install_ccbridge(other, args.against, "--no-sandbox")
        cases.append(other)
    if not args.no_wall:
        walled = new_case(work, "ccbridge (wall)", env)
        install_ccbridge(walled, ccbridge)
        alone = new_case(work, "user hook + sandbox", env)
        sandbox_alone(alone, walled)
        cases += [alone, bare, walled]
    else:
        cases.append(bare)

    peers: list[tuple[str, Callable[[], str]]] = []
    if not args.no_peers:
        peers.append(("cc-safety-net", lambda: f"{safety_net(work)} hook --claude-code"))
        if args.dippy:
            peers.append(("Dippy", lambda: dippy(work, Path(args.dippy))))
        else:
            skipped.append("Dippy: no --dippy checkout given")
    for name, command in peers:
        try:
            line = command()
        except CaseError as problem:
            skipped.append(f"{name}: {problem}")
            continue
        case = new_case(work, name, env)
        write_json(
            settings_file(case.project), user_settings(case.project, hook_group(line, "Bash"))
        )
        cases.append(case)
    return cases, skipped


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--versions", default="2.1.332,2.1.335")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--dippy", help="a Dippy work tree or bare git directory")
    parser.add_argument("--ccbridge", help="this ccbridge executable, not a clean install")
    parser.add_argument(
        "--against", help=f"another ccbridge executable, timed in the same rounds as {AGAINST!r}"
    )
    parser.add_argument("--no-peers", action="store_true", help="leave the peers out")
    parser.add_argument("--no-wall", action="store_true", help="leave the sandboxed cases out")
    parser.add_argument("--quick", action="store_true", help="1 round of 4 calls, one version")
    parser.add_argument(
        "--out", type=Path, help="write the run here (default: add it to bench/RESULTS.md)"
    )
    parser.add_argument("--label", default="", help="what this run measured, for the history")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.calls = 1, 4
    versions = [v for v in args.versions.split(",") if v]
    if args.quick:
        versions = versions[:1]
    binaries = {v: harness.claude_binary(v) for v in versions}
    missing = [v for v, b in binaries.items() if b is None]
    if missing:
        print(f"no Claude Code binary for {', '.join(missing)}", file=sys.stderr)
        return 2
    start_load = loadavg()
    adopt_orphans()
    with tempfile.TemporaryDirectory(prefix="ccbridge-cc-bench-") as scratch:
        work = Path(scratch)
        env = clean_env()
        try:
            cases, skipped = prepare(work, args, env)
        except (CaseError, suite.BenchError) as problem:
            print(f"!! preparing failed: {problem}", file=sys.stderr)
            return 1
        for line in skipped:
            print(f"skipped: {line}", flush=True)
        try:
            for index in range(args.rounds):
                turn = index % len(cases)
                for case in cases[turn:] + cases[:turn]:
                    for version in versions:
                        gaps, cpu = session(binaries[version] or Path(), case, args.calls)
                        case.gaps.setdefault(version, []).extend(gaps)
                        case.cpu.setdefault(version, []).append(cpu / args.calls)
                print(f"round {index + 1}/{args.rounds} done (load {loadavg()})", flush=True)
        except (CaseError, subprocess.TimeoutExpired) as problem:
            print(f"!! a session failed: {problem}", file=sys.stderr)
            return 1
    lines = [
        f"- Date (UTC): {datetime.now(UTC):%Y-%m-%d %H:%M}",
        f"- Cores: {os.cpu_count()}; {platform.system()} {platform.release()}",
        f"- Claude Code: {', '.join(versions)}",
        f"- Rounds: {args.rounds} x {args.calls} calls of Bash(true) per case and version",
        f"- Load average at start: {start_load}; at end: {loadavg()}",
        *(f"- Left out: {line}" for line in skipped),
        "",
        *table(cases, versions),
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out or args.quick:
        if args.out:
            args.out.write_text(text, encoding="utf-8")
            print(f"results written to {args.out}")
        return 0
    append_run(HERE / "RESULTS.md", args.label, text)
    print(f"results added to {HERE / 'RESULTS.md'}")
    return 0


def append_run(path: Path, label: str, text: str) -> None:
    """Add the run to the results file's section of runs through Claude Code, newest first."""
    previous = path.read_text(encoding="utf-8") if path.is_file() else ""
    head, _, runs = previous.partition(suite.CC_CALLS)
    title = f"### {datetime.now(UTC):%Y-%m-%d %H:%M} UTC" + (f": {label}" if label else "")
    earlier = runs.strip("\n")
    section = f"{suite.CC_CALLS}\n\n{title}\n\n{text}" + (f"\n{earlier}\n" if earlier else "")
    path.write_text(head.rstrip("\n") + "\n\n" + section, encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
