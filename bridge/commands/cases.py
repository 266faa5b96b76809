"""Fixture cases: one hook event, the config it runs against, and the answer expected.

The project's golden suite (`fixtures/`) and users' own tests (`ccbridge test`) share this format.
A case is a directory:

    <case>/
      event.json      the hook event, exactly what Claude Code writes on the hook's stdin
      config.yaml     a ccbridge config, or instead settings.json: a CC settings file whose
                      `hooks` key is used. With neither, the case runs against the caller's
                      config (`ccbridge test` uses --config FILE or the user's layered config).
      expected.json   {"stdout": <ccbridge's stdout as parsed JSON, or null when it is empty>,
                       "exit_code": 0,
                       "stderr_contains": ["substring", ...]}      (optional, default [])
      setup           optional executable, run first with cwd = the case's work directory (a
                      fresh, empty temporary directory); a non-zero exit fails the case
      anything else   sub-hook scripts and data the case needs, beside the case

`${CASE_DIR}` (the case directory, absolute) and `${WORK_DIR}` (the work directory) are replaced
as plain text in the config and in event.json before the run. In ccbridge's output, before it is
compared or recorded, those real paths are turned back into the placeholders, and the private
temporary directory that holds the work directory, home/, state/ and cache/ into `${RUN_DIR}`;
for a case without a config of its own, which runs in the caller's home and project, those
two become `${HOME}` and `${CLAUDE_PROJECT_DIR}`. expected.json does not depend on where the
case lives or ran, nor on whose machine: a teammate's run compares equal. Give sub-hooks a
`name:`: a name made from a command longer than 60 characters is cut, and a cut path cannot
be put back.

A case runs the real `ccbridge run` as a subprocess, stdin = the event, cwd = the work directory,
with CASE_DIR, WORK_DIR and CLAUDE_PROJECT_DIR (= the work directory) in its environment. A case
with its own config is hermetic: `--config` names the substituted copy, and HOME,
CCBRIDGE_STATE_DIR and CCBRIDGE_CACHE_DIR point into a private temporary directory. A case
without one keeps the caller's HOME and project so the caller's config applies; only the state
directory is private, so a test run never writes the caller's audit log or goal state.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bridge import CcbridgeError

EVENT_FILE = "event.json"
EXPECTED_FILE = "expected.json"
CONFIG_FILES = ("config.yaml", "settings.json")
SETUP_FILE = "setup"
CASE_DIR = "${CASE_DIR}"
WORK_DIR = "${WORK_DIR}"
RUN_DIR = "${RUN_DIR}"
HOME_DIR = "${HOME}"
PROJECT_DIR = "${CLAUDE_PROJECT_DIR}"
RUN_TIMEOUT = 120.0  # seconds: above ccbridge's own 50 s cap per sub-hook, plus start-up
# Variables of the caller that would steer a hermetic case to another config or project.
_CALLER_ONLY = (
    "CCBRIDGE_CONFIG",
    "CLAUDE_PROJECT_DIR",
    "CCBRIDGE_STATE_DIR",
    "CCBRIDGE_CACHE_DIR",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
)


class FixtureError(CcbridgeError):
    """A case directory that cannot be run; the message names the file and what is wrong."""


@dataclass(frozen=True)
class Expected:
    stdout: Any
    exit_code: int
    stderr_contains: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "stdout": self.stdout,
            "exit_code": self.exit_code,
            "stderr_contains": list(self.stderr_contains),
        }

    @classmethod
    def from_json(cls, data: Any, where: Path) -> Expected:
        if not isinstance(data, dict):
            raise FixtureError(f"{where}: expected a JSON object")
        unknown = set(data) - {"stdout", "exit_code", "stderr_contains"}
        if unknown:
            raise FixtureError(
                f"{where}: unknown keys {sorted(unknown)} (allowed: stdout, "
                "exit_code, stderr_contains)"
            )
        if "stdout" not in data or "exit_code" not in data:
            raise FixtureError(f"{where}: needs both 'stdout' (JSON or null) and 'exit_code'")
        code = data["exit_code"]
        if not isinstance(code, int) or isinstance(code, bool):
            raise FixtureError(f"{where}: 'exit_code' must be an integer")
        needles = data.get("stderr_contains", [])
        if not isinstance(needles, list) or not all(isinstance(n, str) for n in needles):
            raise FixtureError(f"{where}: 'stderr_contains' must be a list of strings")
        return cls(data["stdout"], code, tuple(needles))


@dataclass(frozen=True)
class Case:
    path: Path
    event: str
    config: Path | None
    expected: Expected | None  # None: not recorded yet
    setup: Path | None

    @property
    def name(self) -> str:
        return str(self.path)


@dataclass(frozen=True)
class Actual:
    """What `ccbridge run` did, with the case's real paths put back as placeholders."""

    stdout: Any  # parsed JSON, None for no output, or the raw text when it is not JSON
    exit_code: int | None  # None: it did not finish (see error)
    stderr: str
    error: str | None = None


@dataclass(frozen=True)
class CaseOutcome:
    case: Case
    actual: Actual
    mismatches: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.mismatches


def load_case(path: Path) -> Case:
    path = path.resolve()
    event_file = path / EVENT_FILE
    try:
        event = event_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise FixtureError(f"{event_file}: cannot read the event: {error}") from None
    configs = [path / name for name in CONFIG_FILES if (path / name).is_file()]
    if len(configs) > 1:
        raise FixtureError(f"{path}: has both {CONFIG_FILES[0]} and {CONFIG_FILES[1]}; keep one")
    expected_file = path / EXPECTED_FILE
    expected = None
    if expected_file.exists():
        try:
            data = json.loads(expected_file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as error:
            raise FixtureError(f"{expected_file}: not readable JSON: {error}") from None
        expected = Expected.from_json(data, expected_file)
    setup = path / SETUP_FILE
    return Case(
        path, event, configs[0] if configs else None, expected, setup if setup.is_file() else None
    )


def discover(paths: Iterable[Path]) -> list[Path]:
    """Case directories: each path that holds an event.json, else every one below it, sorted."""
    found: list[Path] = []
    for path in paths:
        if not path.exists():
            raise FixtureError(f"{path}: no such file or directory")
        if path.is_file():
            path = path.parent
        if (path / EVENT_FILE).is_file():
            found.append(path)
        else:
            found.extend(sorted(event.parent for event in path.rglob(EVENT_FILE)))
    return list(dict.fromkeys(found))


# Folders a project search skips: other tools' trees and hidden folders (but .claude).
_SKIPPED = frozenset({"node_modules", "__pycache__", "venv", "site-packages"})


def discover_project(root: Path) -> list[Path]:
    """Every case in a project (a folder with both event.json and expected.json, as
    `ccbridge test --init` writes them), wherever it was put, sorted."""
    found = []
    for folder, folders, files in os.walk(root):
        folders[:] = [
            name
            for name in folders
            if name not in _SKIPPED and (not name.startswith(".") or name == ".claude")
        ]
        if EVENT_FILE in files and EXPECTED_FILE in files:
            found.append(Path(folder))
    return sorted(found)


def ccbridge_command() -> list[str]:
    """The installed `ccbridge`, preferring this interpreter's own scripts directory, so the
    code under test is the code that runs."""
    beside = Path(sysconfig.get_path("scripts")) / "ccbridge"
    if beside.is_file():
        return [str(beside)]
    found = shutil.which("ccbridge")
    return [found] if found else [sys.executable, "-m", "bridge"]


def _substitute(text: str, case_dir: Path, work: Path) -> str:
    return text.replace(CASE_DIR, str(case_dir)).replace(WORK_DIR, str(work))


def _machine_paths(env: Mapping[str, str]) -> list[tuple[str, str]]:
    """The caller's home and project, which a case without a config of its own runs in: each
    as given and as resolved, so a case recorded on one machine passes on a teammate's."""
    pairs = []
    for variable, placeholder in (("HOME", HOME_DIR), ("CLAUDE_PROJECT_DIR", PROJECT_DIR)):
        given = env.get(variable, "")
        if given.strip("/"):  # a home of `/` would turn every path into a placeholder
            for form in dict.fromkeys((given.rstrip("/"), str(Path(given).resolve()))):
                pairs.append((form, placeholder))
    return pairs


_PATH_END = r"(?![^/\s\"'`:;,)\]}])"  # the path ends here: a separator, a quote or the end


def _placeholders(
    text: str, case_dir: Path, root: Path, machine: Sequence[tuple[str, str]] = ()
) -> str:
    # Longest first: the work directory lies below the run directory, a project below home.
    pairs = sorted(
        [
            (str(case_dir), CASE_DIR),
            (str(root / "work"), WORK_DIR),
            (str(root), RUN_DIR),
            *machine,
        ],
        key=lambda pair: -len(pair[0]),
    )
    for real, placeholder in pairs:
        # only whole path components: a home /home/al is not the start of /home/alice
        text = re.sub(re.escape(real) + _PATH_END, placeholder.replace("\\", r"\\"), text)
    return text


def _parsed(text: str) -> Any:
    if not text.strip():
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def run_case(
    case: Case,
    *,
    fallback_config: Path | None = None,
    env: Mapping[str, str] | None = None,
    command: Sequence[str] | None = None,
) -> Actual:
    """Run the case through `ccbridge run` in a fresh temporary directory."""
    base = dict(os.environ if env is None else env)
    with tempfile.TemporaryDirectory(prefix="ccbridge-case-") as scratch:
        root = Path(scratch).resolve()
        work = root / "work"
        work.mkdir()
        run_env = {
            **base,
            "CASE_DIR": str(case.path),
            "WORK_DIR": str(work),
            "CCBRIDGE_STATE_DIR": str(root / "state"),
        }
        argv = [*(command or ccbridge_command()), "run"]
        if case.config is not None:
            for name in _CALLER_ONLY:
                run_env.pop(name, None)
            run_env.update(
                HOME=str(root / "home"),
                CCBRIDGE_STATE_DIR=str(root / "state"),
                CCBRIDGE_CACHE_DIR=str(root / "cache"),
                CLAUDE_PROJECT_DIR=str(work),
            )
            config = root / case.config.name
            config.write_text(
                _substitute(case.config.read_text(encoding="utf-8"), case.path, work),
                encoding="utf-8",
            )
            argv += ["--config", str(config)]
        else:
            run_env["CLAUDE_PROJECT_DIR"] = base.get("CLAUDE_PROJECT_DIR") or os.getcwd()
            if fallback_config is not None:
                argv += ["--config", str(fallback_config.resolve())]
        if case.setup is not None:
            failure = _run_setup(case.setup, work, run_env)
            if failure is not None:
                return Actual(None, None, "", failure)
        event = _substitute(case.event, case.path, work).encode()
        try:
            done = subprocess.run(
                argv,
                input=event,
                capture_output=True,
                cwd=work,
                env=run_env,
                timeout=RUN_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return Actual(None, None, "", f"ccbridge run did not finish in {RUN_TIMEOUT:g}s")
        except OSError as error:
            return Actual(None, None, "", f"could not start {argv[0]}: {error.strerror}")
        machine = _machine_paths(run_env) if case.config is None else ()
        stdout = _placeholders(done.stdout.decode("utf-8", "replace"), case.path, root, machine)
        stderr = _placeholders(done.stderr.decode("utf-8", "replace"), case.path, root, machine)
        return Actual(_parsed(stdout), done.returncode, stderr)


def _run_setup(setup: Path, work: Path, env: Mapping[str, str]) -> str | None:
    try:
        done = subprocess.run(
            [str(setup)],
            cwd=work,
            env=dict(env),
            capture_output=True,
            timeout=RUN_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"setup could not run: {error}"
    if done.returncode != 0:
        tail = done.stderr.decode("utf-8", "replace").strip()[-500:]
        return f"setup exited with code {done.returncode}" + (f": {tail}" if tail else "")
    return None


def _pretty(value: Any) -> list[str]:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False).splitlines()


def compare(expected: Expected | None, actual: Actual) -> list[str]:
    """Readable lines saying how actual differs from expected; empty when the case passes."""
    if actual.error is not None:
        return [actual.error]
    if expected is None:
        return [f"no {EXPECTED_FILE} yet (record one with `ccbridge test --update`)"]
    lines: list[str] = []
    if expected.stdout != actual.stdout:
        lines.append("stdout differs (- expected, + actual):")
        lines += [
            line.rstrip("\n")
            for line in difflib.unified_diff(
                _pretty(expected.stdout),
                _pretty(actual.stdout),
                "expected",
                "actual",
                lineterm="",
                n=3,
            )
        ][2:]
    if expected.exit_code != actual.exit_code:
        lines.append(f"exit code: expected {expected.exit_code}, got {actual.exit_code}")
    for needle in expected.stderr_contains:
        if needle not in actual.stderr:
            lines.append(f"stderr does not contain {needle!r}; stderr was:")
            lines += ["  " + line for line in (actual.stderr.strip() or "(empty)").splitlines()]
    return lines


def check_case(
    case: Case,
    *,
    fallback_config: Path | None = None,
    env: Mapping[str, str] | None = None,
    command: Sequence[str] | None = None,
) -> CaseOutcome:
    actual = run_case(case, fallback_config=fallback_config, env=env, command=command)
    return CaseOutcome(case, actual, compare(case.expected, actual))


def record(case: Case, actual: Actual) -> Expected:
    """Write what happened as the case's expected.json, keeping the stderr needles that still
    hold. Refuses a run that did not finish."""
    if actual.error is not None or actual.exit_code is None:
        raise FixtureError(f"{case.name}: cannot record a run that failed: {actual.error}")
    needles = case.expected.stderr_contains if case.expected else ()
    expected = Expected(
        actual.stdout,
        actual.exit_code,
        tuple(needle for needle in needles if needle in actual.stderr),
    )
    text = json.dumps(expected.to_json(), indent=2, ensure_ascii=False) + "\n"
    (case.path / EXPECTED_FILE).write_text(text, encoding="utf-8")
    return expected


_TOOL_EVENT = {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_fixture"}
SKELETONS: dict[str, dict[str, Any]] = {
    "PreToolUse": dict(_TOOL_EVENT),
    "PostToolUse": {
        **_TOOL_EVENT,
        "tool_response": {"stdout": "", "stderr": "", "interrupted": False},
    },
    "PostToolUseFailure": {**_TOOL_EVENT, "error": "Command failed", "is_interrupt": False},
    "PermissionRequest": {"tool_name": "Bash", "tool_input": {"command": "ls"}},
    "UserPromptSubmit": {"prompt": "hello"},
    "Stop": {"stop_hook_active": False, "last_assistant_message": "Done."},
    "Notification": {"message": "Claude needs your permission", "notification_type": "idle_prompt"},
    "SubagentStart": {"agent_id": "agent-1", "agent_type": "general-purpose"},
    "SubagentStop": {
        "agent_id": "agent-1",
        "agent_type": "general-purpose",
        "stop_hook_active": False,
        "last_assistant_message": "Done.",
    },
    "SessionStart": {"source": "startup"},
    "SessionEnd": {"reason": "other"},
    "PreCompact": {"trigger": "manual", "custom_instructions": ""},
}


def skeleton_event(event_name: str) -> dict[str, Any]:
    if event_name not in SKELETONS:
        raise FixtureError(f"no skeleton for {event_name!r}; choose one of {', '.join(SKELETONS)}")
    return {
        "session_id": "fixture",
        "cwd": WORK_DIR,
        "hook_event_name": event_name,
        **SKELETONS[event_name],
    }


def write_skeleton(directory: Path, event_name: str) -> list[Path]:
    """A new case directory: event.json for the event type and an expected.json of "no
    objection" (empty stdout, exit 0) to edit or re-record."""
    event = skeleton_event(event_name)
    if directory.exists() and any(directory.iterdir()):
        raise FixtureError(f"{directory}: exists and is not empty; choose a new directory")
    directory.mkdir(parents=True, exist_ok=True)
    written = [directory / EVENT_FILE, directory / EXPECTED_FILE]
    written[0].write_text(json.dumps(event, indent=2) + "\n", encoding="utf-8")
    written[1].write_text(
        json.dumps(Expected(None, 0).to_json(), indent=2) + "\n", encoding="utf-8"
    )
    return written


def init(event_name: str, target: Path | None = None) -> tuple[Path, list[Path]]:
    """`ccbridge test --init`: a case skeleton in `target` (default ./<event>-case), and the
    files written; a target that cannot be written is a FixtureError naming why."""
    directory = target if target is not None else Path(f"{event_name.lower()}-case")
    try:
        return directory, write_skeleton(directory, event_name)
    except OSError as error:
        raise FixtureError(str(error)) from None


def project_root(env: Mapping[str, str]) -> Path:
    """$CLAUDE_PROJECT_DIR, else the nearest directory from here up that holds a `.git` or a
    `.claude` (the home directory's own `.claude` is the user's, not a project): never a walk
    of whatever tree the command happens to run in. In no project, a FixtureError."""
    if env.get("CLAUDE_PROJECT_DIR"):
        return Path(env["CLAUDE_PROJECT_DIR"]).resolve()
    here = Path.cwd().resolve()
    home = Path(env.get("HOME") or Path.home()).resolve()
    for folder in (here, *here.parents):
        if (folder / ".git").exists() or (folder != home and (folder / ".claude").is_dir()):
            return folder
    raise FixtureError(
        f"{here} is in no project (no .git or .claude here or above), so there is no project "
        "to search for cases: name the cases or their directory, e.g. `ccbridge test tests/hooks`"
    )


def select(paths: Sequence[Path], project: Callable[[], Path]) -> list[Path]:
    """The cases `ccbridge test` runs: those under `paths`, or without paths every case of the
    project (`project()`, asked only then); finding none is a FixtureError that says what a
    case is."""
    if not paths:  # every case of the project, wherever `--init` put it
        root = project()
        found = discover_project(root)
        if not found:
            raise FixtureError(
                f"no cases (directories with an event.json and an expected.json) in {root}; "
                "write one with `ccbridge test --init EVENT DIR`"
            )
        return found
    found = discover(paths)
    if not found:
        raise FixtureError(
            "no cases (directories with an event.json) under " + ", ".join(map(str, paths))
        )
    return found
