#!/usr/bin/env python3
"""ccbridge benchmarks, measured the way users install it: in a clean virtual environment that
the script creates (`python -m venv`, then a normal, non-editable `pip install` of this
checkout), with no `.pth` file from elsewhere. Every figure is a median of interleaved runs
(A B A B ...), printed as a ratio against baselines measured in the same run and the same
environment, so load from other processes hits both alike.

    python bench/run.py            full run, writes bench/RESULTS.md
    python bench/run.py --quick    smoke run with few repetitions (writes only with --out)

Baselines: the environment's `python -c pass`, its `python -I -S -c pass`, and the smallest
honest Python hook, `python -c 'import json,sys; json.load(sys.stdin)'` fed the same event.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

K = TypeVar("K")
HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent
SLEEP = 0.2
SLEEPERS = 5
JSON_HOOK = "import json,sys; json.load(sys.stdin)"
VALGRIND = ("valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null")
# The heading of bench/cc_calls.py's section of the results file (it appends its runs there).
CC_CALLS = "## Per tool call through Claude Code (bench/cc_calls.py)"
# What a wheel of this checkout is built from (no build/ or egg-info left in the checkout).
PACKAGED = ("pyproject.toml", "README.md", "bridge", "bin")


class BenchError(RuntimeError):
    """A case did not behave as it should; its timing would be meaningless."""


@dataclass
class Ratio:
    """The row's value against one baseline, with the target it must meet (if any)."""

    baseline: str
    value: float  # the baseline's, in the row's unit
    limit: float | None = None  # the row may be at most `limit` times the baseline

    def of(self, value: float) -> float:
        return value / self.value


@dataclass
class Row:
    section: str
    case: str
    value: float  # in `unit`
    unit: str = "ms"
    ratios: tuple[Ratio, ...] = ()
    cpu: float | None = None  # CPU time (user + system) of the process tree, in ms
    target: str = ""  # a target that is not a ratio (an absolute bound)
    ok: bool | None = None
    note: str = ""

    def verdicts(self) -> list[tuple[str, bool]]:
        """(target, met) for every target of the row."""
        found = [
            (f"<= {ratio.limit:g}x {ratio.baseline}", ratio.of(self.value) <= ratio.limit)
            for ratio in self.ratios
            if ratio.limit is not None
        ]
        if self.target and self.ok is not None:
            found.append((self.target, self.ok))
        return found


@dataclass
class Plan:
    reps: int  # process runs per case
    cheap_reps: int  # in-process operations per case
    # Runs per startup case: its targets sit a few percent from the measured ratios, and a median
    # of 42 runs moved by a tenth between quiet runs; 120 interleaved runs take some 15 s.
    startup_reps: int = 120
    hook_counts: tuple[int, ...] = (1, 4, 16, 64)
    audit_sizes: tuple[int, ...] = (10, 10_000, 1_000_000)
    goal_sizes: tuple[int, ...] = (10, 1_000, 100_000)
    rss_reps: int = 5


@dataclass
class Venv:
    """The clean environment: its interpreter and the console script pip wrote for ccbridge."""

    root: Path
    python: str
    ccbridge: str
    pth: tuple[str, ...]  # every .pth file in the environment, by name


@dataclass
class Bench:
    plan: Plan
    work: Path
    env: dict[str, str]
    venv: Venv
    rows: list[Row] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def add(self, row: Row) -> None:
        self.rows.append(row)
        print(format_row(row), flush=True)

    def ccbridge(self, config: str) -> list[str]:
        return [self.venv.ccbridge, "run", "--config", config]


# ---------------------------------------------------------------------------------- measuring


def interleaved(
    cases: Mapping[K, Callable[[], tuple[float, ...]]], reps: int
) -> dict[K, tuple[float, ...]]:
    """Median of each measure of each case (seconds), run round-robin with a rotating start so
    none goes first."""
    names = list(cases)
    samples: dict[K, list[tuple[float, ...]]] = {name: [] for name in names}
    for rep in range(reps):
        for offset in range(len(names)):
            name = names[(rep + offset) % len(names)]
            samples[name].append(cases[name]())
    return {
        name: tuple(statistics.median(measure) for measure in zip(*values, strict=True))
        for name, values in samples.items()
    }


def spawn(
    argv: Sequence[str],
    env: Mapping[str, str],
    stdin: bytes = b"",
    check: Callable[[subprocess.CompletedProcess[bytes]], None] | None = None,
) -> tuple[float, float]:
    """(wall, CPU) seconds of one run. CPU time (user + system of the process and the children
    it waited for) barely moves with the load of other processes, so it is a cross-check of the
    wall-clock figure on a busy machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(list(argv), input=stdin, capture_output=True, env=dict(env), check=False)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if check is not None:
        check(done)
    elif done.returncode != 0:
        raise BenchError(f"{shlex.join(argv)} exited {done.returncode}: {done.stderr!r}")
    return elapsed, cpu


def runner(
    argv: Sequence[str],
    env: Mapping[str, str],
    stdin: bytes = b"",
    check: Callable[[subprocess.CompletedProcess[bytes]], None] | None = None,
) -> Callable[[], tuple[float, float]]:
    return lambda: spawn(argv, env, stdin, check)


def expect(
    decision: str, exit_code: int = 0
) -> Callable[[subprocess.CompletedProcess[bytes]], None]:
    """A check that ccbridge answered with `decision` ("none" = no decision)."""

    def check(done: subprocess.CompletedProcess[bytes]) -> None:
        payload = json.loads(done.stdout) if done.stdout.strip() else {}
        specific = payload.get("hookSpecificOutput", {})
        got = specific.get("permissionDecision") or payload.get("decision") or "none"
        if got != decision or done.returncode != exit_code:
            raise BenchError(
                f"expected {decision}/exit {exit_code}, got {got}/exit "
                f"{done.returncode}: stdout={done.stdout!r} stderr={done.stderr!r}"
            )

    return check


# ---------------------------------------------------------------------------------- fixtures


def event(tool: str, tool_input: Mapping[str, object], session: str = "bench") -> bytes:
    return json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "session_id": session,
            "transcript_path": "",
            "cwd": "",
            "permission_mode": "default",
            "tool_name": tool,
            "tool_input": tool_input,
            "tool_use_id": "toolu_bench",
        }
    ).encode()


READ_EVENT = event("Read", {"file_path": "/etc/hostname"})
BASH_EVENT = event("Bash", {"command": "git status --short"})
GUARDS = (
    str(CHECKOUT / "hooks" / "dangerous_shell.py") + ":guard",
    str(CHECKOUT / "hooks" / "protect_paths.py") + ":guard",
)


def write_config(bench: Bench, name: str, config: Mapping[str, object]) -> str:
    """JSON is YAML: the config is written as JSON into a .yaml file, no YAML writer needed."""
    path = bench.work / f"{name}.yaml"
    path.write_text(json.dumps(config, indent=1))
    return str(path)


def command_hooks(commands: Sequence[str]) -> dict[str, object]:
    handlers = [{"type": "command", "command": command} for command in commands]
    return {"PreToolUse": [{"matcher": "*", "hooks": handlers}]}


def warm(
    argv: Sequence[str],
    env: Mapping[str, str],
    stdin: bytes,
    check: Callable[[subprocess.CompletedProcess[bytes]], None],
) -> None:
    """Compile and cache the config, and prove the case answers as expected before timing it."""
    for _ in range(2):
        spawn(argv, env, stdin, check)


# ---------------------------------------------------------------------------------- sections


def bench_startup(bench: Bench) -> None:
    """Whole `ccbridge run` calls against the environment's own floors, on a warm config cache.
    The default config: self-protection and the audit log on."""
    section = "Startup, clean environment, warm cache"
    python = bench.venv.python
    default = write_config(bench, "empty", {"hooks": {}})
    guarded = write_config(bench, "guards", {"policies": {"guards": list(GUARDS)}})
    cases = {
        "pass": ([python, "-c", "pass"], b"", None),
        "isolated": ([python, "-I", "-S", "-c", "pass"], b"", None),
        "json": ([python, "-c", JSON_HOOK], BASH_EVENT, None),
        "read": (bench.ccbridge(default), READ_EVENT, expect("none")),
        "bash": (bench.ccbridge(default), BASH_EVENT, expect("none")),
        "guards": (bench.ccbridge(guarded), BASH_EVENT, expect("none")),
    }
    for argv, stdin, check in cases.values():
        if check is not None:
            warm(argv, bench.env, stdin, check)
    medians = interleaved(
        {
            name: runner(argv, bench.env, stdin, check)
            for name, (argv, stdin, check) in cases.items()
        },
        bench.plan.startup_reps,
    )
    ms = {name: value[0] * 1000 for name, value in medians.items()}
    cpu = {name: value[1] * 1000 for name, value in medians.items()}
    bench.add(Row(section, "python -c pass", ms["pass"], cpu=cpu["pass"]))
    bench.add(Row(section, "python -I -S -c pass", ms["isolated"], cpu=cpu["isolated"]))
    hook = "json hook"
    bench.add(
        Row(
            section,
            f"{hook}: python -c '{JSON_HOOK}'",
            ms["json"],
            cpu=cpu["json"],
            ratios=(Ratio("python -c pass", ms["pass"]),),
            note="the smallest honest Python hook, fed the same Bash event",
        )
    )
    limits: dict[str, dict[str, float]] = {
        "read": {},
        "bash": {"python -c pass": 1.6, hook: 1.25},
        "guards": {hook: 1.35},
    }
    for name, label in (
        ("read", "ccbridge run, Read event, default config"),
        ("bash", "ccbridge run, Bash event, default config (self-protection parses it)"),
        ("guards", "ccbridge run, Bash event, dangerous_shell + protect_paths native guards"),
    ):
        bench.add(
            Row(
                section,
                label,
                ms[name],
                cpu=cpu[name],
                ratios=tuple(
                    Ratio(baseline, ms[key], limits[name].get(baseline))
                    for baseline, key in (
                        ("python -c pass", "pass"),
                        ("python -I -S -c pass", "isolated"),
                        (hook, "json"),
                    )
                ),
            )
        )


def instructions(argv: Sequence[str], env: Mapping[str, str], stdin: bytes) -> float:
    """Millions of instructions the command executed (valgrind's count, the process alone)."""
    done = subprocess.run(
        [*VALGRIND, *argv],
        input=stdin,
        capture_output=True,
        env={**env, "PYTHONHASHSEED": "0"},  # the same dict layouts every run
        check=False,
    )
    found = re.search(rb"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise BenchError(f"valgrind gave no count for {shlex.join(argv)}: {done.stderr[-300:]!r}")
    return int(found.group(1).replace(b",", b"")) / 1e6


def bench_instructions(bench: Bench) -> None:
    """The startup rows again as instructions executed: a count that other processes' load does
    not move, for a shared machine where wall-clock medians wander. No target is judged on it."""
    section = "Instructions executed, clean environment (valgrind; load-independent cross-check)"
    if shutil.which("valgrind") is None:
        bench.skipped.append(f"{section}: valgrind is not installed")
        return
    python = bench.venv.python
    default, guarded = str(bench.work / "empty.yaml"), str(bench.work / "guards.yaml")
    cases = {
        "python -c pass": ([python, "-c", "pass"], b""),
        "python -I -S -c pass": ([python, "-I", "-S", "-c", "pass"], b""),
        "json hook": ([python, "-c", JSON_HOOK], BASH_EVENT),
        "ccbridge run, Read event, default config": (bench.ccbridge(default), READ_EVENT),
        "ccbridge run, Bash event, default config": (bench.ccbridge(default), BASH_EVENT),
        "ccbridge run, Bash event, native guards": (bench.ccbridge(guarded), BASH_EVENT),
    }
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        counts = dict(
            zip(
                cases,
                pool.map(lambda case: instructions(case[0], bench.env, case[1]), cases.values()),
                strict=True,
            )
        )
    baselines = ("python -c pass", "python -I -S -c pass", "json hook")
    for name, count in counts.items():
        ratios = tuple(Ratio(base, counts[base]) for base in baselines if base != name)
        bench.add(Row(section, name, count, "M instr", ratios if name not in baselines[:2] else ()))


def bench_checkout(bench: Bench) -> None:
    """The figures this file used to report: the base interpreter with this checkout installed
    in it (an editable install, whatever .pth files its site-packages run)."""
    section = "For comparison: the base interpreter with this checkout installed (not clean)"
    script = Path(sysconfig.get_path("scripts")) / "ccbridge"
    if not script.is_file():
        bench.skipped.append(f"{section}: no ccbridge console script at {script}")
        return
    config = str(bench.work / "empty.yaml")
    argv = [str(script), "run", "--config", config]
    warm(argv, bench.env, BASH_EVENT, expect("none"))
    medians = interleaved(
        {
            "pass": runner([sys.executable, "-c", "pass"], bench.env),
            "bash": runner(argv, bench.env, BASH_EVENT, expect("none")),
        },
        bench.plan.reps,
    )
    ms = {name: value[0] * 1000 for name, value in medians.items()}
    bench.add(Row(section, "python -c pass (base interpreter)", ms["pass"]))
    bench.add(
        Row(
            section,
            "ccbridge run, Bash event, default config",
            ms["bash"],
            ratios=(Ratio("python -c pass (base interpreter)", ms["pass"]),),
            note="both sides pay the .pth files, which hides ccbridge's own cost",
        )
    )


def bench_instant_hooks(bench: Bench) -> None:
    section = "Sub-hooks that exit at once, vs the same processes from a shell in parallel"
    empty = runner(bench.ccbridge(str(bench.work / "empty.yaml")), bench.env, READ_EVENT)
    for count in bench.plan.hook_counts:
        commands = [f"exit 0 # {n}" for n in range(count)]  # distinct: identical ones run once
        config = write_config(bench, f"instant-{count}", {"hooks": command_hooks(commands)})
        script = " ".join(f"sh -c {shlex.quote(command)} &" for command in commands) + " wait"
        warm(bench.ccbridge(config), bench.env, READ_EVENT, expect("none"))
        medians = interleaved(
            {
                "shell": runner(["sh", "-c", script], bench.env),
                "ccbridge": runner(bench.ccbridge(config), bench.env, READ_EVENT, expect("none")),
                "empty": empty,
            },
            bench.plan.reps,
        )
        ms = {name: value[0] * 1000 for name, value in medians.items()}
        shell = Ratio("sh -c 'p & p & ... wait'", ms["shell"])
        bench.add(Row(section, f"{count} sub-hook(s)", ms["ccbridge"], ratios=(shell,)))
        share = Ratio(shell.baseline, shell.value, 1.3 if count == 64 else None)
        bench.add(
            Row(
                section,
                f"{count} sub-hook(s), minus an empty-config run",
                ms["ccbridge"] - ms["empty"],
                ratios=(share,),
                note="the runner's own share, without the interpreter's start",
            )
        )


def bench_sleepers(bench: Bench) -> None:
    section = f"{SLEEPERS} sub-hooks sleeping {SLEEP:g} s"
    commands = [f"sleep {SLEEP:g} # {n}" for n in range(SLEEPERS)]
    config = write_config(bench, "sleepers", {"hooks": command_hooks(commands)})
    warm(bench.ccbridge(config), bench.env, READ_EVENT, expect("none"))
    medians = interleaved(
        {"ccbridge": runner(bench.ccbridge(config), bench.env, READ_EVENT, expect("none"))},
        bench.plan.reps,
    )
    ms = medians["ccbridge"][0] * 1000
    bench.add(
        Row(
            section,
            f"ccbridge, {SLEEPERS} sleepers",
            ms,
            ratios=(
                Ratio(f"one sleep ({SLEEP:g} s)", SLEEP * 1000),
                Ratio(f"sequential ({SLEEPERS * SLEEP:g} s)", SLEEPERS * SLEEP * 1000),
            ),
            target="< 350 ms",
            ok=ms < 350,
        )
    )


GUARD_SOURCE = """
def guard(execution):
    command = str(execution.input.get("command", ""))
    return "force-pushing is not allowed here" if "push --force" in command else None
"""

HOOK_SOURCE = """
import json, sys
event = json.load(sys.stdin)
command = str(event.get("tool_input", {}).get("command", ""))
if "push --force" in command:
    json.dump({"hookSpecificOutput": {"hookEventName": "PreToolUse",
               "permissionDecision": "deny",
               "permissionDecisionReason": "force-pushing is not allowed here"}}, sys.stdout)
"""


def bench_native_guard(bench: Bench) -> None:
    section = "The same policy as a native guard and as a sub-hook process (Bash event)"
    (bench.work / "guard.py").write_text(GUARD_SOURCE)
    (bench.work / "hook.py").write_text(HOOK_SOURCE)
    native = write_config(
        bench, "native", {"policies": {"guards": [f"{bench.work / 'guard.py'}:guard"]}}
    )
    handler = {
        "type": "command",
        "command": bench.venv.python,
        "args": [str(bench.work / "hook.py")],
    }
    process = write_config(
        bench,
        "process",
        {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}},
    )
    bad = event("Bash", {"command": "git push --force"})
    for config in (native, process):  # both really enforce the policy
        warm(bench.ccbridge(config), bench.env, bad, expect("deny", 2))
        warm(bench.ccbridge(config), bench.env, BASH_EVENT, expect("none"))
    medians = interleaved(
        {
            "native": runner(bench.ccbridge(native), bench.env, BASH_EVENT, expect("none")),
            "process": runner(bench.ccbridge(process), bench.env, BASH_EVENT, expect("none")),
        },
        bench.plan.reps,
    )
    bench.add(
        Row(
            section,
            "native guard",
            medians["native"][0] * 1000,
            ratios=(Ratio("policy as a Python sub-hook", medians["process"][0] * 1000),),
        )
    )


def bench_plain_hooks(bench: Bench) -> None:
    """The ready-made guards as plain CC hooks (`hooks/*.py`, no options) against `ccbridge run`
    with both as native guards, on the same Bash event: a plain hook must start as lean."""
    section = "Plain hooks against ccbridge run with both guards (Bash event, warm cache)"
    guarded = write_config(bench, "plain-guards", {"policies": {"guards": list(GUARDS)}})
    plain = {
        name: [bench.venv.python, str(CHECKOUT / "hooks" / f"{name}.py")]
        for name in ("dangerous_shell", "protect_paths")
    }
    bad = event("Bash", {"command": "rm -rf /"})
    for argv in plain.values():  # each answers nothing on a harmless command
        spawn(argv, bench.env, BASH_EVENT, expect_silence)
    spawn(plain["dangerous_shell"], bench.env, bad, expect("deny"))
    warm(bench.ccbridge(guarded), bench.env, bad, expect("deny", 2))
    warm(bench.ccbridge(guarded), bench.env, BASH_EVENT, expect("none"))
    cases = {
        "pass": runner([bench.venv.python, "-c", "pass"], bench.env),
        "run": runner(bench.ccbridge(guarded), bench.env, BASH_EVENT, expect("none")),
        **{
            name: runner(argv, bench.env, BASH_EVENT, expect_silence)
            for name, argv in plain.items()
        },
    }
    medians = interleaved(cases, bench.plan.startup_reps)
    ms = {name: value[0] * 1000 for name, value in medians.items()}
    cpu = {name: value[1] * 1000 for name, value in medians.items()}
    both = "ccbridge run, both native guards"
    bench.add(
        Row(section, both, ms["run"], cpu=cpu["run"], ratios=(Ratio("python -c pass", ms["pass"]),))
    )
    for name in plain:
        bench.add(
            Row(
                section,
                f"plain hook hooks/{name}.py",
                ms[name],
                cpu=cpu[name],
                ratios=(Ratio(both, ms["run"], 1.1), Ratio("python -c pass", ms["pass"])),
            )
        )


def expect_silence(done: subprocess.CompletedProcess[bytes]) -> None:
    """A plain hook with no objection prints nothing and exits 0."""
    if done.returncode != 0 or done.stdout.strip():
        raise BenchError(f"expected no answer, got exit {done.returncode}: {done.stdout!r}")


def audit_line(bench: Bench) -> bytes:
    """A real record, from the empty-config runs above, to fill the big logs with."""
    log = bench.work / "state" / "audit.jsonl"
    with open(log, "rb") as handle:
        return handle.readlines()[-1]


def fill(path: Path, line: bytes, count: int) -> None:
    per = 10_000  # lines per write: a million records take a second, not a minute
    with open(path, "wb") as handle:
        for _ in range(count // per):
            handle.write(line * per)
        handle.write(line * (count % per))


def add_flat(
    bench: Bench,
    section: str,
    label: str,
    noun: str,
    medians: Mapping[int, tuple[float, ...]],
    scale: float,
    unit: str,
) -> None:
    """Rows for a cost that must stay flat as N grows: each size against the smallest."""
    sizes = sorted(medians)
    small = Ratio(f"{sizes[0]:,} {noun}", medians[sizes[0]][0] * scale, 1.5)
    for size in sizes:
        bench.add(
            Row(section, f"{label}, {size:,} {noun}", medians[size][0] * scale, unit, (small,))
        )


def bench_audit(bench: Bench) -> None:
    from bridge.audit.log import append

    section = "Audit append with N existing records (no rotation)"
    line = audit_line(bench)
    record = json.loads(line)
    huge = 1 << 50
    logs = {}
    for size in bench.plan.audit_sizes:
        logs[size] = bench.work / f"audit-{size}.jsonl"
        fill(logs[size], line, size)

    def appending(path: Path) -> Callable[[], tuple[float]]:
        def once() -> tuple[float]:
            started = time.perf_counter()
            append(path, record, huge, 5)
            return (time.perf_counter() - started,)

        return once

    medians = interleaved(
        {size: appending(path) for size, path in logs.items()}, bench.plan.cheap_reps
    )
    add_flat(bench, section, "append, in-process", "records", medians, 1e6, "us")
    configs = {
        size: write_config(
            bench, f"audit-{size}", {"audit": {"path": str(path), "max_bytes": huge}}
        )
        for size, path in logs.items()
    }
    for config in configs.values():
        warm(bench.ccbridge(config), bench.env, READ_EVENT, expect("none"))
    runs = interleaved(
        {
            size: runner(bench.ccbridge(config), bench.env, READ_EVENT, expect("none"))
            for size, config in configs.items()
        },
        bench.plan.reps,
    )
    add_flat(bench, section, "ccbridge run", "records", runs, 1000, "ms")
    for path in logs.values():
        path.unlink()


TURN = 10  # events per turn in the synthetic session history


def goal_history(size: int) -> list[tuple[str, bool]]:
    """(event kind, from a human) for `size` events: closed turns, then one open turn."""
    events: list[tuple[str, bool]] = []
    while len(events) < size:
        left = size - len(events)
        turn = min(TURN, left)
        closed = left > TURN
        events.append(("turn_start", True))
        events += [("message", n % 2 == 0) for n in range(turn - 1 - closed)]
        if closed:
            events.append(("turn_end", True))
    return events


def bench_goal(bench: Bench) -> None:
    section = "Goal authority check with N events in the session log"
    from bridge.goal.authority import EventKind, Level, MessageSource, SessionEvent, authorize
    from bridge.goal.model import Action
    from bridge.goal.store import GoalStore

    session, at = "bench-session", "2026-01-01T00:00:00Z"
    paths = {}
    for size in bench.plan.goal_sizes:
        paths[size] = bench.work / f"goals-{size}.sqlite"
        store = GoalStore.open(paths[size])
        with store.write() as tx:
            for kind, human in goal_history(size):
                source = MessageSource.human() if human else None
                tx.append_event(session, SessionEvent(EventKind(kind), source), at)
        store.close()

    def checking(path: Path, reopen: bool) -> Callable[[], tuple[float]]:
        kept = None if reopen else GoalStore.open(path)

        def once() -> tuple[float]:
            started = time.perf_counter()
            store = GoalStore.open(path) if kept is None else kept
            with store.read() as tx:
                window, goal = tx.window(session), tx.current_goal(session)
            level = authorize(Action.CREATE, window, goal, is_root=True, blocked_min_rounds=3)
            if kept is None:
                store.close()
            elapsed = time.perf_counter() - started
            if level is not Level.DIRECT_HUMAN:
                raise BenchError(f"authority check said {level}, expected a direct human turn")
            return (elapsed,)

        return once

    for reopen, label in ((False, "check on an open store"), (True, "open the store + check")):
        medians = interleaved(
            {size: checking(path, reopen) for size, path in paths.items()}, bench.plan.cheap_reps
        )
        add_flat(bench, section, label, "events", medians, 1e6, "us")


RSS_PROBE = """
import resource, subprocess, sys
subprocess.run(sys.argv[2:], input=sys.argv[1].encode(), stdout=subprocess.DEVNULL,
               stderr=subprocess.DEVNULL, check=False)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def bench_warm(bench: Bench) -> None:
    """A Bash call as `ccbridge install --user` registers it (the warm client before `ccbridge
    run`), with both ready-made guards and the user's hook behind ccbridge: cold (no server, so
    the registration runs `ccbridge run`) and warm (a server serving this process, as the
    session's first call starts one for Claude Code), against the user's hook alone. The
    warm case's CPU figure is the client's: the server's child is not this process's."""
    section = "A tool call through the warm path"
    if shutil.which("socat", path=bench.env.get("PATH")) is None:
        bench.skipped.append(f"{section}: no socat on PATH")
        return
    project = bench.work / "warm-project"
    hook = project / ".claude" / "user-hook.sh"
    hook.parent.mkdir(parents=True)
    hook.write_text("#!/bin/sh\ncat >/dev/null\n")
    hook.chmod(0o755)
    config = {
        "policies": {"guards": ["builtin:dangerous_shell", "builtin:protect_paths"]},
        "hooks": command_hooks([str(hook)]),
    }
    (project / ".claude" / "ccbridge.yaml").write_text(json.dumps(config))
    env = {**bench.env, "CLAUDE_PROJECT_DIR": str(project)}
    cold_env = {**env, "CCBRIDGE_STATE_DIR": str(bench.work / "cold-state")}
    warm_env = {**env, "CCBRIDGE_STATE_DIR": str(bench.work / "warm-state")}
    written = subprocess.run(
        [bench.venv.python, "-I", "-c", REGISTRATION, bench.venv.ccbridge],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    hook_call = ["/bin/sh", "-c", written]
    server = start_server(bench, warm_env)
    try:
        cases = {
            "user": runner(["/bin/sh", "-c", str(hook)], env, BASH_EVENT),
            "cold": runner(hook_call, cold_env, BASH_EVENT, expect("none")),
            "warm": runner(hook_call, warm_env, BASH_EVENT, expect("none")),
        }
        for case in cases.values():
            case()
        medians = interleaved(cases, bench.plan.reps * 3)
    finally:
        server.kill()
        server.wait()
    user = medians["user"][0] * 1000
    bench.add(Row(section, "the user's hook alone (sh, as Claude Code runs it)", user))
    for name, label in (
        ("cold", "cold: the registration runs ccbridge run"),
        ("warm", "warm: the registration hands the call to the server"),
    ):
        wall, cpu = (value * 1000 for value in medians[name])
        bench.add(Row(section, label, wall, ratios=(Ratio("user hook", user),), cpu=cpu))


# What `ccbridge install --user` registers for PreToolUse with this ccbridge, as the installed
# code writes it.
REGISTRATION = (
    "import sys; from bridge.config.registrations import registration_command, warm; "
    "print(warm('PreToolUse', registration_command(sys.argv[1])), end='')"
)


def start_server(bench: Bench, env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """A warm server serving this process, as `ccbridge run` starts one for Claude Code."""
    stat = Path(f"/proc/{os.getpid()}/stat").read_text()
    started = stat[stat.rfind(")") + 2 :].split()[19]
    argv = [bench.venv.python, "-I", bench.venv.ccbridge, "warm-serve", str(os.getpid()), started]
    server = subprocess.Popen(
        argv,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    socket = Path(env["CCBRIDGE_STATE_DIR"]) / "warm" / str(os.getpid())
    until = time.monotonic() + 30
    while not socket.is_socket():
        if time.monotonic() > until or server.poll() is not None:
            server.kill()
            raise BenchError(f"the warm server did not come up at {socket}")
        time.sleep(0.05)
    return server


def peak_rss(bench: Bench, argv: Sequence[str], stdin: bytes) -> float:
    """MiB: the largest child of a fresh probe process is the command we ran (ru_maxrss in KiB)."""
    values = []
    for _ in range(bench.plan.rss_reps):
        done = subprocess.run(
            [sys.executable, "-c", RSS_PROBE, stdin.decode(), *argv],
            capture_output=True,
            env=bench.env,
            check=True,
        )
        values.append(int(done.stdout) / 1024)
    return statistics.median(values)


def bench_memory(bench: Bench) -> None:
    section = "Peak RSS, clean environment"
    baseline = peak_rss(bench, [bench.venv.python, "-c", "pass"], b"")
    floor = Ratio("python -c pass", baseline)
    bench.add(Row(section, "python -c pass", baseline, unit="MiB"))
    for label, name, stdin, limit in (
        ("ccbridge run, default config, Read", "empty", READ_EVENT, None),
        ("ccbridge run, default config, Bash", "empty", BASH_EVENT, 1.1),
        ("ccbridge run, native guards, Bash", "guards", BASH_EVENT, None),
        ("ccbridge run, 16 sub-hooks", "instant-16", READ_EVENT, None),
    ):
        config = bench.work / f"{name}.yaml"
        if not config.exists():
            continue
        value = peak_rss(bench, bench.ccbridge(str(config)), stdin)
        ratio = Ratio(floor.baseline, floor.value, limit)
        bench.add(Row(section, label, value, "MiB", (ratio,), target="< 40 MiB", ok=value < 40))


# ---------------------------------------------------------------------------------- reporting


def format_row(row: Row) -> str:
    ratios = "; ".join(
        f"{ratio.of(row.value):.2f}x {ratio.baseline} ({ratio.value:.1f})" for ratio in row.ratios
    )
    cpu = f"[cpu {row.cpu:.1f}]" if row.cpu is not None else ""
    verdicts = " ".join(f"[{'PASS' if ok else 'MISS'} {text}]" for text, ok in row.verdicts())
    line = f"{row.case:<60} {row.value:8.1f} {row.unit:<3} {cpu} {ratios} {verdicts} {row.note}"
    return " ".join(line.split(" ")).rstrip()


def site_pth(root: Path) -> tuple[str, ...]:
    return tuple(sorted(str(path.relative_to(root)) for path in root.rglob("*.pth")))


def machine(venv: Venv) -> dict[str, str]:
    model = "unknown"
    try:
        for text in Path("/proc/cpuinfo").read_text().splitlines():
            if text.startswith("model name"):
                model = text.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    from bridge import __version__

    base = Path(sysconfig.get_path("purelib"))
    return {
        "Date (UTC)": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"),
        "CPU": model,
        "Cores": str(os.cpu_count()),
        "OS": f"{platform.system()} {platform.release()} ({platform.machine()})",
        "Python": f"{platform.python_implementation()} {platform.python_version()}",
        "Clean environment": f"{venv.root} (python -m venv --without-pip; pip install of the "
        "checkout, not editable)",
        "ccbridge": f"{__version__} ({venv.ccbridge})",
        ".pth files in the clean environment": ", ".join(venv.pth) or "none",
        ".pth files of the base interpreter (comparison rows only)": ", ".join(
            path.name for path in sorted(base.glob("*.pth"))
        )
        or "none",
        "Load average at start": " ".join(f"{value:.2f}" for value in os.getloadavg()),
    }


METHOD = (
    "- The clean environment is made by the script: `python -m venv --without-pip` (so no "
    "setuptools `.pth` either), then `pip --python <venv> install <copy of the checkout>`, a "
    "normal wheel install with the console script pip writes, as `pipx`/`uv tool install` give "
    "a user. Its `.pth` files are listed above. Python variables of the caller are not passed.",
    "- Processes are timed from the bench (a Python parent) with `subprocess.run`, stdin fed, "
    "output captured, and each answer checked, so a broken case is reported, not timed. The "
    "`cpu` figure printed next to a median is user + system time, a cross-check on a busy "
    "machine.",
    "- Baselines, in the same environment and the same interleaved run: `python -c pass`, "
    "`python -I -S -c pass` (no site at all), and the json hook `python -c 'import json,sys; "
    "json.load(sys.stdin)'` fed the same Bash event: the smallest honest Python hook.",
    "- The default config is `{hooks: {}}`: self-protection and the audit log on (the log in a "
    "scratch state directory), the compiled config cached by a first run.",
    "- The Read event is pure bridge overhead; the Bash event also runs the built-in "
    "self-protection guard, which parses the command; the guards row adds "
    "`hooks/dangerous_shell.py:guard` and `hooks/protect_paths.py:guard` as native guards.",
    "- Sub-hooks are `sh -c 'exit 0 # n'` (distinct, since identical handlers run once); the "
    "baseline starts the same commands from one shell in parallel and waits for them.",
    "- Audit and goal rows time the in-process operation (the log or store prepared first, "
    "written directly, with no rotation), plus a whole `ccbridge run` for the audit.",
    "- Peak RSS is `ru_maxrss` of the command, read in a fresh probe process.",
    "- Instructions: valgrind's count of instructions each startup case executed (the process "
    "alone, one run each), a figure the load of other processes does not move; targets are "
    "judged on the wall-clock medians, as a user waits them.",
)


def write_results(path: Path, bench: Bench, described: dict[str, str], plan_text: str) -> None:
    lines = [
        "# ccbridge benchmark results",
        "",
        "Written by `python bench/run.py`; do not edit by hand. Every figure is the median "
        "of interleaved runs (baseline and subject alternate); each ratio is against the "
        "baseline named next to it, measured in the same run and environment.",
        "",
        "## Method",
        "",
        *METHOD,
        "",
        "## Machine",
        "",
    ]
    lines += [f"- {key}: {value}" for key, value in described.items()]
    lines += [
        f"- Load average at end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}",
        f"- Repetitions: {plan_text}",
        "",
        "## Targets",
        "",
    ]
    lines += [
        f"- {'PASS' if ok else '**MISS**'}: {row.case} {text}"
        for row in bench.rows
        for text, ok in row.verdicts()
    ]
    section = None
    for row in bench.rows:
        if row.section != section:
            section = row.section
            lines += [
                "",
                f"## {section}",
                "",
                "| case | median | cpu | vs baseline | ratio | target |",
                "|---|---:|---:|---|---:|---|",
            ]
        cpu = f"{row.cpu:.1f} ms" if row.cpu is not None else ""
        ratios = row.ratios or (None,)
        for index, ratio in enumerate(ratios):
            first = index == 0
            case = row.case if first else ""
            value = f"{row.value:.1f} {row.unit}" if first else ""
            base = f"{ratio.baseline} ({ratio.value:.1f} {row.unit})" if ratio else ""
            times = f"{ratio.of(row.value):.2f}x" if ratio else ""
            if ratio and ratio.limit is not None:
                met = ratio.of(row.value) <= ratio.limit
                target = f"<= {ratio.limit:g}x: {'PASS' if met else '**MISS**'}"
            elif first and row.target:
                target = f"{row.target}: {'PASS' if row.ok else '**MISS**'}"
            else:
                target = row.note if first else ""
            lines.append(
                f"| {case} | {value} | {cpu if first else ''} | {base} | {times} | {target} |"
            )
    if bench.skipped:
        lines += ["", "## Not measured", ""] + [f"- {text}" for text in bench.skipped]
    # bench/cc_calls.py's runs through Claude Code follow, then the earlier figures kept by hand:
    # both are kept as they were.
    previous = path.read_text() if path.is_file() else ""
    kept = previous[previous.find(CC_CALLS) :] if CC_CALLS in previous else ""
    path.write_text("\n".join(lines) + "\n" + ("\n" + kept if kept else ""))


# ---------------------------------------------------------------------------------- main


def make_venv(work: Path, env: Mapping[str, str]) -> Venv:
    """A fresh virtual environment with this checkout installed as a user would install it.

    The wheel is built from a copy of the packaged files, so the checkout gets no build/ or
    egg-info from it. pip may use its cache and the wheels already on this machine."""
    root = work / "venv"
    source = work / "source"
    source.mkdir()
    for name in PACKAGED:
        origin = CHECKOUT / name
        if origin.is_dir():
            shutil.copytree(origin, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(origin, source / name)
    quiet = {"capture_output": True, "text": True, "env": dict(env), "check": False}
    steps = (
        [sys.executable, "-m", "venv", "--without-pip", str(root)],
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(root / "bin" / "python"),
            "install",
            "--quiet",
            "--disable-pip-version-check",
            str(source),
        ],
    )
    for step in steps:
        done = subprocess.run(step, **quiet)  # type: ignore[call-overload]
        if done.returncode != 0:
            raise BenchError(f"{shlex.join(step)} failed: {done.stdout}{done.stderr}")
    shutil.rmtree(source)
    return Venv(
        root=root,
        python=str(root / "bin" / "python"),
        ccbridge=str(root / "bin" / "ccbridge"),
        pth=site_pth(root),
    )


def environment(work: Path) -> dict[str, str]:
    """The caller's environment minus ccbridge's, Claude Code's and Python's variables (a user's
    hook sees none of the bench's PYTHON*), in a scratch HOME."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("CCBRIDGE_", "CLAUDE_", "PYTHON"))
    }
    project = work / "project"
    for directory in (work / "home", project):
        directory.mkdir(parents=True, exist_ok=True)
    env.update(
        HOME=str(work / "home"),
        CCBRIDGE_STATE_DIR=str(work / "state"),
        CCBRIDGE_CACHE_DIR=str(work / "cache"),
        CLAUDE_PROJECT_DIR=str(project),
    )
    return env


SECTIONS = (
    bench_startup,
    bench_instructions,
    bench_checkout,
    bench_instant_hooks,
    bench_sleepers,
    bench_native_guard,
    bench_plain_hooks,
    bench_audit,
    bench_goal,
    bench_memory,
    bench_warm,
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="few repetitions and small logs: proves the script works",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="results file (default: bench/RESULTS.md; --quick writes only here)",
    )
    args = parser.parse_args(argv)
    if args.quick:
        plan = Plan(
            reps=3,
            cheap_reps=20,
            audit_sizes=(10, 100, 1000),
            goal_sizes=(10, 100),
            rss_reps=1,
            startup_reps=6,
        )
    else:
        plan = Plan(reps=21, cheap_reps=300)
    out = args.out if args.out or args.quick else HERE / "RESULTS.md"
    plan_text = (
        f"{plan.reps} per process case ({plan.startup_reps} for startup), "
        f"{plan.cheap_reps} per in-process case, {plan.rss_reps} per memory case"
    )
    failed = []
    with tempfile.TemporaryDirectory(prefix="ccbridge-bench-") as temporary:
        work = Path(temporary)
        env = environment(work)
        started = time.monotonic()
        try:
            venv = make_venv(work, env)
        except BenchError as error:
            print(f"bench: cannot make the clean environment: {error}", file=sys.stderr)
            return 1
        print(f"clean environment made in {time.monotonic() - started:.0f} s")
        described = machine(venv)
        for key, value in described.items():
            print(f"{key}: {value}")
        bench = Bench(plan, work, env, venv)
        for section in SECTIONS:
            try:
                section(bench)
            except BenchError as error:  # report it and go on: one broken case hides no other
                failed.append(f"{section.__name__}: {error}")
                bench.skipped.append(f"{section.__name__} failed: {error}")
                print(f"!! {section.__name__} failed: {error}", file=sys.stderr, flush=True)
        print("\ntargets:")
        for row in bench.rows:
            for text, ok in row.verdicts():
                print(f"  {'PASS' if ok else 'MISS'}  {row.case} {text}")
        if out is not None:
            write_results(out, bench, described, plan_text)
            print(f"results written to {out}")
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
