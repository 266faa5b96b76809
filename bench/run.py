#!/usr/bin/env python3
"""ccbridge benchmarks: every figure is a median of interleaved runs, printed as a ratio against a
baseline measured in the same run (A B A B ...), so load from other processes hits both alike.

    python bench/run.py            full run, writes bench/RESULTS.md
    python bench/run.py --quick    smoke run with few repetitions (writes only with --out)

It measures the real interpreter (sys.executable) and the real `ccbridge` console script next to
it, never a version-manager shim, in a throw-away HOME / state / cache directory.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

K = TypeVar("K")
HERE = Path(__file__).resolve().parent
PYTHON = sys.executable
CCBRIDGE = str(Path(sysconfig.get_path("scripts")) / "ccbridge")
SLEEP = 0.2
SLEEPERS = 5


class BenchError(RuntimeError):
    """A case did not behave as it should; its timing would be meaningless."""


@dataclass
class Row:
    section: str
    case: str
    value: float  # in `unit`
    unit: str = "ms"
    baseline: str = ""
    baseline_value: float | None = None
    target: str = ""
    ok: bool | None = None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.baseline_value:
            return self.value / self.baseline_value
        return None


@dataclass
class Plan:
    reps: int  # process runs per case
    cheap_reps: int  # in-process operations per case
    hook_counts: tuple[int, ...] = (1, 4, 16, 64)
    audit_sizes: tuple[int, ...] = (10, 10_000, 1_000_000)
    goal_sizes: tuple[int, ...] = (10, 1_000, 100_000)
    rss_reps: int = 5


@dataclass
class Bench:
    plan: Plan
    work: Path
    env: dict[str, str]
    rows: list[Row] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def add(self, row: Row) -> None:
        self.rows.append(row)
        print(format_row(row), flush=True)


# ---------------------------------------------------------------------------------- measuring


def interleaved(cases: Mapping[K, Callable[[], float]], reps: int) -> dict[K, float]:
    """Median seconds of each case, run round-robin with a rotating start so none goes first."""
    names = list(cases)
    times: dict[K, list[float]] = {name: [] for name in names}
    for rep in range(reps):
        for offset in range(len(names)):
            name = names[(rep + offset) % len(names)]
            times[name].append(cases[name]())
    return {name: statistics.median(values) for name, values in times.items()}


def spawn(
    argv: Sequence[str],
    env: Mapping[str, str],
    stdin: bytes = b"",
    check: Callable[[subprocess.CompletedProcess[bytes]], None] | None = None,
) -> float:
    started = time.perf_counter()
    done = subprocess.run(list(argv), input=stdin, capture_output=True, env=dict(env), check=False)
    elapsed = time.perf_counter() - started
    if check is not None:
        check(done)
    elif done.returncode != 0:
        raise BenchError(f"{shlex.join(argv)} exited {done.returncode}: {done.stderr!r}")
    return elapsed


def runner(
    argv: Sequence[str],
    env: Mapping[str, str],
    stdin: bytes = b"",
    check: Callable[[subprocess.CompletedProcess[bytes]], None] | None = None,
) -> Callable[[], float]:
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


def write_config(bench: Bench, name: str, config: Mapping[str, object]) -> str:
    """JSON is YAML: the config is written as JSON into a .yaml file, no YAML writer needed."""
    path = bench.work / f"{name}.yaml"
    path.write_text(json.dumps(config, indent=1))
    return str(path)


def command_hooks(commands: Sequence[str]) -> dict[str, object]:
    handlers = [{"type": "command", "command": command} for command in commands]
    return {"PreToolUse": [{"matcher": "*", "hooks": handlers}]}


def ccbridge(config: str) -> list[str]:
    return [CCBRIDGE, "run", "--config", config]


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
    section = "Startup, empty config (warm cache)"
    config = write_config(bench, "empty", {"hooks": {}})
    read = runner(ccbridge(config), bench.env, READ_EVENT, expect("none"))
    bash = runner(ccbridge(config), bench.env, BASH_EVENT, expect("none"))
    warm(ccbridge(config), bench.env, READ_EVENT, expect("none"))
    warm(ccbridge(config), bench.env, BASH_EVENT, expect("none"))
    medians = interleaved(
        {
            "pass": runner([PYTHON, "-c", "pass"], bench.env),
            "isolated": runner([PYTHON, "-I", "-S", "-c", "pass"], bench.env),
            "read": read,
            "bash": bash,
        },
        bench.plan.reps * 3,
    )  # the cheap cases get more runs
    ms = {name: value * 1000 for name, value in medians.items()}
    bench.add(Row(section, "python3 -c pass", ms["pass"]))
    bench.add(Row(section, "python3 -I -S -c pass", ms["isolated"]))
    for name, label in (
        ("read", "ccbridge run, Read event"),
        ("bash", "ccbridge run, Bash event (self-protection parses it)"),
    ):
        bench.add(
            Row(
                section,
                label,
                ms[name],
                baseline="python3 -c pass",
                baseline_value=ms["pass"],
                target="<= 1.25x",
                ok=ms[name] <= 1.25 * ms["pass"],
            )
        )
        bench.add(
            Row(
                section,
                label,
                ms[name],
                baseline="python3 -I -S -c pass",
                baseline_value=ms["isolated"],
                note="for reference",
            )
        )


def bench_instant_hooks(bench: Bench) -> None:
    section = "Sub-hooks that exit at once, vs the same processes from a shell in parallel"
    empty = runner(ccbridge(str(bench.work / "empty.yaml")), bench.env, READ_EVENT, expect("none"))
    for count in bench.plan.hook_counts:
        commands = [f"exit 0 # {n}" for n in range(count)]  # distinct: identical ones run once
        config = write_config(bench, f"instant-{count}", {"hooks": command_hooks(commands)})
        script = " ".join(f"sh -c {shlex.quote(command)} &" for command in commands) + " wait"
        warm(ccbridge(config), bench.env, READ_EVENT, expect("none"))
        medians = interleaved(
            {
                "shell": runner(["sh", "-c", script], bench.env),
                "ccbridge": runner(ccbridge(config), bench.env, READ_EVENT, expect("none")),
                "empty": empty,
            },
            bench.plan.reps,
        )
        limit = 1.5 if count == 64 else None
        shell = medians["shell"] * 1000
        bench.add(
            Row(
                section,
                f"{count} sub-hook(s)",
                medians["ccbridge"] * 1000,
                baseline="sh -c 'p & p & ... wait'",
                baseline_value=shell,
                target="<= 1.5x" if limit else "",
                ok=medians["ccbridge"] <= limit * medians["shell"] if limit else None,
            )
        )
        bench.add(
            Row(
                section,
                f"{count} sub-hook(s), minus an empty-config run",
                (medians["ccbridge"] - medians["empty"]) * 1000,
                baseline="sh -c 'p & p & ... wait'",
                baseline_value=shell,
                note="the runner's own share, without the interpreter's start",
            )
        )


def bench_sleepers(bench: Bench) -> None:
    section = f"{SLEEPERS} sub-hooks sleeping {SLEEP:g} s"
    commands = [f"sleep {SLEEP:g} # {n}" for n in range(SLEEPERS)]
    config = write_config(bench, "sleepers", {"hooks": command_hooks(commands)})
    warm(ccbridge(config), bench.env, READ_EVENT, expect("none"))
    medians = interleaved(
        {
            "ccbridge": runner(ccbridge(config), bench.env, READ_EVENT, expect("none")),
        },
        bench.plan.reps,
    )
    ms = medians["ccbridge"] * 1000
    bench.add(
        Row(
            section,
            f"ccbridge, {SLEEPERS} sleepers",
            ms,
            baseline=f"one sleep ({SLEEP:g} s)",
            baseline_value=SLEEP * 1000,
            target="< 350 ms",
            ok=ms < 350,
        )
    )
    bench.add(
        Row(
            section,
            f"ccbridge, {SLEEPERS} sleepers",
            ms,
            baseline=f"sequential ({SLEEPERS * SLEEP:g} s)",
            baseline_value=SLEEPERS * SLEEP * 1000,
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
    process = write_config(
        bench,
        "process",
        {
            "hooks": {
                "PreToolUse": [
                    {
                        "matcher": "Bash",
                        "hooks": [
                            {
                                "type": "command",
                                "command": PYTHON,
                                "args": [str(bench.work / "hook.py")],
                            }
                        ],
                    }
                ]
            }
        },
    )
    bad = event("Bash", {"command": "git push --force"})
    for config in (native, process):  # both really enforce the policy
        warm(ccbridge(config), bench.env, bad, expect("deny", 2))
        warm(ccbridge(config), bench.env, BASH_EVENT, expect("none"))
    medians = interleaved(
        {
            "native": runner(ccbridge(native), bench.env, BASH_EVENT, expect("none")),
            "process": runner(ccbridge(process), bench.env, BASH_EVENT, expect("none")),
        },
        bench.plan.reps,
    )
    bench.add(
        Row(
            section,
            "native guard",
            medians["native"] * 1000,
            baseline="policy as a Python sub-hook",
            baseline_value=medians["process"] * 1000,
        )
    )


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
    medians: Mapping[int, float],
    scale: float,
    unit: str,
) -> None:
    """Rows for a cost that must stay flat as N grows: each size against the smallest."""
    sizes = sorted(medians)
    small = sizes[0]
    for size in sizes:
        bench.add(
            Row(
                section,
                f"{label}, {size:,} {noun}",
                medians[size] * scale,
                unit=unit,
                baseline=f"{small:,} {noun}",
                baseline_value=medians[small] * scale,
                target="<= 1.5x",
                ok=medians[size] <= 1.5 * medians[small],
            )
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

    def appending(path: Path) -> Callable[[], float]:
        def once() -> float:
            started = time.perf_counter()
            append(path, record, huge, 5)
            return time.perf_counter() - started

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
        warm(ccbridge(config), bench.env, READ_EVENT, expect("none"))
    runs = interleaved(
        {
            size: runner(ccbridge(config), bench.env, READ_EVENT, expect("none"))
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
    try:
        measure_goal(bench, section)
    except (ImportError, AttributeError, TypeError, ValueError) as error:  # an API still moving
        bench.skipped.append(f"{section}: not available yet ({type(error).__name__}: {error})")
        print(f"-- {bench.skipped[-1]}", flush=True)


def measure_goal(bench: Bench, section: str) -> None:
    from bridge.goal.authority import EventKind, Level, SessionEvent, Source, authorize
    from bridge.goal.model import Action
    from bridge.goal.store import GoalStore

    session, at = "bench-session", "2026-01-01T00:00:00Z"
    paths = {}
    for size in bench.plan.goal_sizes:
        paths[size] = bench.work / f"goals-{size}.sqlite"
        store = GoalStore.open(paths[size])
        with store.write() as tx:
            for kind, human in goal_history(size):
                source = Source.human() if human else None
                tx.append_event(session, SessionEvent(EventKind(kind), source), at)
        store.close()

    def checking(path: Path, reopen: bool) -> Callable[[], float]:
        kept = None if reopen else GoalStore.open(path)

        def once() -> float:
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
            return elapsed

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


def peak_rss(bench: Bench, argv: Sequence[str], stdin: bytes) -> float:
    """MiB: the largest child of a fresh probe process is the command we ran (ru_maxrss in KiB)."""
    values = []
    for _ in range(bench.plan.rss_reps):
        done = subprocess.run(
            [PYTHON, "-c", RSS_PROBE, stdin.decode(), *argv],
            capture_output=True,
            env=bench.env,
            check=True,
        )
        values.append(int(done.stdout) / 1024)
    return statistics.median(values)


def bench_memory(bench: Bench) -> None:
    section = "Peak RSS"
    empty = bench.work / "empty.yaml"
    sixteen = bench.work / "instant-16.yaml"
    baseline = peak_rss(bench, [PYTHON, "-c", "pass"], b"")
    bench.add(Row(section, "python3 -c pass", baseline, unit="MiB"))
    for label, config, stdin in (
        ("ccbridge run, empty config, Read", empty, READ_EVENT),
        ("ccbridge run, empty config, Bash", empty, BASH_EVENT),
        ("ccbridge run, 16 sub-hooks", sixteen, READ_EVENT),
    ):
        if not config.exists():
            continue
        value = peak_rss(bench, ccbridge(str(config)), stdin)
        bench.add(
            Row(
                section,
                label,
                value,
                unit="MiB",
                baseline="python3 -c pass",
                baseline_value=baseline,
                target="< 40 MiB",
                ok=value < 40,
            )
        )


# ---------------------------------------------------------------------------------- reporting


def format_row(row: Row) -> str:
    ratio = (
        f"{row.ratio:5.2f}x vs {row.baseline} ({row.baseline_value:.1f} {row.unit})"
        if row.ratio is not None
        else ""
    )
    verdict = {True: "ok", False: "MISSED", None: ""}[row.ok]
    target = f"[target {row.target}: {verdict}]" if row.target else ""
    return f"{row.case:<55} {row.value:8.1f} {row.unit:<3} {ratio} {target} {row.note}".rstrip()


def machine() -> dict[str, str]:
    model = "unknown"
    try:
        for text in Path("/proc/cpuinfo").read_text().splitlines():
            if text.startswith("model name"):
                model = text.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    from bridge import __version__

    site = Path(sysconfig.get_path("purelib"))
    pth = sorted(path.name for path in site.glob("*.pth"))
    return {
        "Date (UTC)": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"),
        "CPU": model,
        "Cores": str(os.cpu_count()),
        "OS": f"{platform.system()} {platform.release()} ({platform.machine()})",
        "Python": f"{platform.python_implementation()} {platform.python_version()} ({PYTHON})",
        "ccbridge": f"{__version__} ({CCBRIDGE})",
        "Load average at start": " ".join(f"{value:.2f}" for value in os.getloadavg()),
        "Python variables passed on": " ".join(
            f"{key}={value}"
            for key, value in sorted(os.environ.items())
            if key.startswith("PYTHON") and key != "PYTHONDONTWRITEBYTECODE"
        )
        or "none",
        "site-packages .pth files (run by every python3 start, the baselines too)": ", ".join(pth)
        or "none",
    }


METHOD = (
    "- Processes are timed from the bench (a Python parent) with `subprocess.run`, stdin fed, "
    "output captured, and each answer checked, so a broken case is reported, not timed.",
    "- `ccbridge` is the real console script next to the real interpreter (no version-manager "
    "shim), in a scratch HOME, state and cache directory, with the compiled config cached by a "
    "first run and fresh .pyc files.",
    "- The Read event is pure bridge overhead; the Bash event also runs the built-in "
    "self-protection guard, which parses the command.",
    "- Sub-hooks are `sh -c 'exit 0 # n'` (distinct, since identical handlers run once); the "
    "baseline starts the same commands from one shell in parallel and waits for them.",
    "- Audit and goal rows time the in-process operation (the log or store prepared first, "
    "written directly, with no rotation), plus a whole `ccbridge run` for the audit.",
    "- Peak RSS is `ru_maxrss` of the command, read in a fresh probe process.",
)


def write_results(path: Path, bench: Bench, described: dict[str, str], plan_text: str) -> None:
    lines = [
        "# ccbridge benchmark results",
        "",
        "Written by `python bench/run.py`; do not edit by hand. Every figure is the median "
        "of interleaved runs (baseline and subject alternate), each ratio is against a "
        "baseline measured in the same run.",
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
    ]
    section = None
    for row in bench.rows:
        if row.section != section:
            section = row.section
            lines += [
                "",
                f"## {section}",
                "",
                "| case | median | vs baseline | ratio | target |",
                "|---|---:|---|---:|---|",
            ]
        ratio = f"{row.ratio:.2f}x" if row.ratio is not None else ""
        base = f"{row.baseline} ({row.baseline_value:.1f} {row.unit})" if row.baseline else ""
        verdict = {True: "ok", False: "**missed**", None: ""}[row.ok]
        target = f"{row.target}: {verdict}" if row.target else row.note
        lines.append(f"| {row.case} | {row.value:.1f} {row.unit} | {base} | {ratio} | {target} |")
    if bench.skipped:
        lines += ["", "## Not measured", ""] + [f"- {text}" for text in bench.skipped]
    path.write_text("\n".join(lines) + "\n")


# ---------------------------------------------------------------------------------- main


def compile_bridge() -> None:
    """Fresh .pyc files for the package, as an install leaves them."""
    import compileall

    import bridge

    compileall.compile_dir(str(Path(bridge.__file__).parent), quiet=1)


def environment(work: Path) -> dict[str, str]:
    """The caller's environment minus ccbridge's and Claude Code's variables, in a scratch HOME.

    PYTHONDONTWRITEBYTECODE goes too: with it, a module edited since its .pyc was written is
    compiled again on every start, which measures the compiler, not ccbridge.
    """
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("CCBRIDGE_", "CLAUDE_")) and key != "PYTHONDONTWRITEBYTECODE"
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
    bench_instant_hooks,
    bench_sleepers,
    bench_native_guard,
    bench_audit,
    bench_goal,
    bench_memory,
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
    if not Path(CCBRIDGE).is_file():
        print(
            f"bench: no ccbridge console script at {CCBRIDGE} (pip install -e .)", file=sys.stderr
        )
        return 1
    if args.quick:
        plan = Plan(
            reps=3, cheap_reps=20, audit_sizes=(10, 100, 1000), goal_sizes=(10, 100), rss_reps=1
        )
    else:
        plan = Plan(reps=21, cheap_reps=300)
    out = args.out if args.out or args.quick else HERE / "RESULTS.md"
    plan_text = (
        f"{plan.reps} per process case ({plan.reps * 3} for startup), "
        f"{plan.cheap_reps} per in-process case, {plan.rss_reps} per memory case"
    )
    compile_bridge()
    described = machine()
    for key, value in described.items():
        print(f"{key}: {value}")
    failed = []
    with tempfile.TemporaryDirectory(prefix="ccbridge-bench-") as temporary:
        work = Path(temporary)
        bench = Bench(plan, work, environment(work))
        for section in SECTIONS:
            try:
                section(bench)
            except BenchError as error:  # report it and go on: one broken case hides no other
                failed.append(f"{section.__name__}: {error}")
                bench.skipped.append(f"{section.__name__} failed: {error}")
                print(f"!! {section.__name__} failed: {error}", file=sys.stderr, flush=True)
        if out is not None:
            write_results(out, bench, described, plan_text)
            print(f"results written to {out}")
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
