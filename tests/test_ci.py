"""CI cannot pass by skipping: scripts/fetch-clients (and scripts/fetch-claude, its Claude Code
part) lets the README's `&&` chain reach pytest whatever it could fetch, and under CI=true an
end-to-end test that would skip fails instead."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NO_CLAUDE = (
    "tests/e2e/test_harness_on_plain_cc.py"
    "::test_deny_blocks_the_command_and_the_reason_reaches_the_model"
)
NO_SQLITE3 = "tests/e2e/test_goal_e2e.py::test_model_cannot_forge_a_human_turn[sqlite3]"
NO_AGENT = "tests/e2e/test_agents_matrix.py::test_agent_matrix[{}-plain-deny]"


def bin_dir(tmp_path: Path, *programs: str) -> str:
    """A PATH holding only these programs."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for program in programs:
        found = shutil.which(program)
        assert found, program
        (folder / program).symlink_to(found)
    return str(folder)


def fetch(script: Path, tmp_path: Path, path: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run a fetch script with only `path` on PATH and its caches under `tmp_path`."""
    return subprocess.run(
        ["bash", str(script)],
        env={
            "HOME": str(tmp_path),
            "PATH": path,
            "CCBRIDGE_CLAUDE_CACHE": str(tmp_path / "cache"),
            "CCBRIDGE_CLIENTS_CACHE": str(tmp_path / "clients"),
            **env,
        },
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("script", ["fetch-clients", "fetch-claude"])
def test_fetching_without_npm_still_reaches_pytest(tmp_path: Path, script: str) -> None:
    tools = ("bash", "dirname", "grep", "mkdir", "tar", "mktemp", "chmod", "mv", "rm")
    done = fetch(REPO / "scripts" / script, tmp_path, bin_dir(tmp_path, *tools), CI="true")
    assert done.returncode == 0, done.stderr
    assert "npm is not installed" in done.stderr and "fail under CI=true" in done.stderr


def test_every_pinned_client_is_one_the_suite_and_ci_fetch() -> None:
    """One file pins every client; .ci/run fetches them all, and each has e2e tests."""
    from tests.e2e.harness import pinned_versions

    lines = (REPO / ".ci" / "client-versions").read_text(encoding="utf-8").splitlines()
    clients = {line.split()[0] for line in lines if line.strip()}
    pinned = {"claude-code", "codex", "gemini-cli", "copilot", "qwen-code", "cline", "opencode"}
    assert clients == pinned
    assert all(pinned_versions(client) for client in clients)
    run = [line for line in (REPO / ".ci" / "run").read_text().splitlines() if line]
    assert "&& scripts/fetch-clients &&" in run[-1]  # every pinned client, in the README's command
    assert run[-1].endswith("python3 -m pytest")
    script = (REPO / "scripts" / "fetch-clients").read_text()
    assert all(f"{client})" in script for client in clients)


def pytest_outcome(test: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", test],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def agent_test(client: str) -> str:
    from tests.e2e.harness import pinned_versions

    host = "gemini" if client == "gemini-cli" else client
    return NO_AGENT.format(f"{host}-{pinned_versions(client)[0]}")


@pytest.mark.parametrize(
    "test", [NO_CLAUDE, NO_SQLITE3, agent_test("codex"), agent_test("gemini-cli")]
)
def test_an_e2e_test_that_would_skip_fails_under_ci(tmp_path: Path, test: str) -> None:
    env = {
        **os.environ,
        "CCBRIDGE_CLAUDE_CACHE": str(tmp_path / "no-claude-here"),
        "CCBRIDGE_CLIENTS_CACHE": str(tmp_path / "no-clients-here"),
        "PATH": bin_dir(tmp_path, "python3"),  # no sqlite3
    }
    env.pop("CI", None)
    local = pytest_outcome(test, env)
    assert local.returncode == 0 and " skipped in " in local.stdout, local.stdout
    ci = pytest_outcome(test, {**env, "CI": "true"})
    assert ci.returncode == 1, ci.stdout  # failed, or an error in the fixture's set-up
    assert "skipped" not in ci.stdout.splitlines()[-1]
    assert "skipped under CI=true" in ci.stdout


SANDBOX = "tests/e2e/test_sandbox_e2e.py"
NO_NAMESPACES = "bwrap: setting up uid map: Permission denied"


def fake_bwrap(tmp_path: Path, works: bool = False) -> dict[str, str]:
    """An environment whose `bwrap` (and `socat`) come first on PATH: a bwrap that cannot make
    namespaces, as under AppArmor's or Docker's defaults, or one that can."""
    folder = tmp_path / "fake-bin"
    folder.mkdir()
    body = "exit 0" if works else f"echo '{NO_NAMESPACES}' >&2; exit 1"
    for name, script in (("bwrap", body), ("socat", "exit 0")):
        (folder / name).write_text(f"#!/bin/sh\n{script}\n")
        (folder / name).chmod(0o755)
    env = {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}
    for name in ("CI", "CCBRIDGE_CI_NO_USERNS"):
        env.pop(name, None)
    return env


def test_a_runner_without_user_namespaces_fails_ci_unless_it_says_so(tmp_path: Path) -> None:
    env = fake_bwrap(tmp_path)
    local = pytest_outcome(SANDBOX, env)
    assert local.returncode == 0 and "2 skipped" in local.stdout, local.stdout
    ci = pytest_outcome(SANDBOX, {**env, "CI": "true"})
    assert ci.returncode == 1, ci.stdout
    assert "2 failed" in ci.stdout.splitlines()[-1], ci.stdout
    for said in ("skipped under CI=true", NO_NAMESPACES, "set CCBRIDGE_CI_NO_USERNS=1 to say so"):
        assert said in ci.stdout, said
    told = pytest_outcome(SANDBOX, {**env, "CI": "true", "CCBRIDGE_CI_NO_USERNS": "1"})
    assert told.returncode == 0, told.stdout
    assert "2 skipped" in told.stdout.splitlines()[-1], told.stdout
    assert "CCBRIDGE_CI_NO_USERNS=1: CLAUDE CODE'S SANDBOX WAS NOT TESTED" in told.stdout
    assert (
        "test_the_sandbox_keeps_the_agent_out_of_ccbridge_and_cc_settings[guards-on]"
        in (told.stdout.split("SANDBOX WAS NOT TESTED", 1)[1])
    )


def test_the_variable_excuses_nothing_but_missing_namespaces(tmp_path: Path) -> None:
    """Told the runner lacks namespaces, CI still fails a sandbox test for which bubblewrap is
    simply not installed."""
    env = {**os.environ, "CI": "true", "CCBRIDGE_CI_NO_USERNS": "1"}
    env["PATH"] = bin_dir(tmp_path, "python3")  # no bwrap, no socat
    done = pytest_outcome(SANDBOX, env)
    assert done.returncode == 1, done.stdout
    assert "skipped under CI=true" in done.stdout and "not installed" in done.stdout
    assert "SANDBOX WAS NOT TESTED" not in done.stdout


def test_an_e2e_module_skipped_at_collection_fails_under_ci(tmp_path: Path) -> None:
    """A skip while the module is imported never reaches a test's report: under CI=true it is a
    collection error. The e2e conftest's hooks, loaded as a plugin, judge a module outside it."""
    module = tmp_path / "test_skipped_whole.py"
    module.write_text(
        "import pytest\npytest.skip('no claude here', allow_module_level=True)\n"
        "def test_never() -> None:\n    pass\n"
    )
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"]
    argv += ["-p", "tests.e2e.conftest", "--rootdir", str(tmp_path), str(module)]
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    env["PYTHONPATH"] = str(REPO)

    def run(extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            argv,
            cwd=tmp_path,
            env={**env, **extra},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    local = run({})  # exit code 5: no test ran, which pytest does not count as a failure
    assert local.returncode == 5 and "1 skipped" in local.stdout, local.stdout + local.stderr
    ci = run({"CI": "true"})
    assert ci.returncode == 2 and "1 error" in ci.stdout, ci.stdout  # interrupted: collection
    assert "skipped at collection under CI=true" in ci.stdout and "no claude here" in ci.stdout


@pytest.mark.parametrize(
    ("works", "told", "says"),
    [
        (True, False, "bwrap --unshare-all true: works"),
        (False, False, f"FAILS: {NO_NAMESPACES}"),
        (False, False, "will fail; on a runner that cannot have user namespaces, set"),
        (False, True, "CCBRIDGE_CI_NO_USERNS=1: the sandbox e2e test will skip"),
    ],
)
def test_ci_run_says_whether_bwrap_can_make_namespaces(
    tmp_path: Path, works: bool, told: bool, says: str
) -> None:
    """`.ci/run` calls `.ci/check-userns` before the tests (checked here by reading it)."""
    assert ".ci/check-userns\n" in (REPO / ".ci" / "run").read_text()
    env = fake_bwrap(tmp_path, works=works)
    if told:
        env["CCBRIDGE_CI_NO_USERNS"] = "1"
    done = subprocess.run(
        [str(REPO / ".ci" / "check-userns")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    assert says in done.stdout + done.stderr


def test_ci_checks_style_and_types_before_the_tests() -> None:
    """`.ci/run` stops at the first failing command (`set -e`, each check a line of its own):
    ruff and mypy come before pytest, and its last line is the README's test command. mypy
    takes its packages from pyproject, which names the tests beside the code."""
    script = (REPO / ".ci" / "run").read_text()
    lines = [line for line in script.splitlines() if line and not line.startswith("#")]
    assert "set -euo pipefail" in lines
    checks = [
        lines.index(check)
        for check in (
            "python3 -m ruff check .",
            "python3 -m ruff format --check .",
            "python3 -m mypy",
        )
    ]
    files = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["mypy"]["files"]
    assert sorted(files) == ["bench", "bridge", "tests"]
    readme = (REPO / "README.md").read_text().split("```sh\n", 1)[1].splitlines()[1]
    assert lines[-1] == readme
    assert all("pytest" not in line for line in lines[: max(checks)])


def test_a_version_pinned_for_one_suite_is_fetched_but_only_that_suite_runs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`client version suite` lines: scripts/fetch-clients fetches them with the rest, and
    pinned_versions gives them to the named suite alone."""
    from tests.e2e import harness

    repo = tmp_path / "repo"
    (repo / ".ci").mkdir(parents=True)
    (repo / "scripts").mkdir()
    pins = "claude-code 9.0.1\nclaude-code 9.0.2 mods\ncodex 1.0.0\n"
    (repo / ".ci" / "client-versions").write_text(pins)
    shutil.copy(REPO / "scripts" / "fetch-clients", repo / "scripts" / "fetch-clients")
    tools = ("bash", "dirname", "mkdir", "tar", "mktemp", "chmod", "mv", "rm", "cat")
    path = bin_dir(tmp_path, *tools)
    asked = tmp_path / "npm-args"
    # one call a line, its arguments tab-separated
    script = f'#!/bin/sh\n(IFS="$(printf \'\\t\')"; echo "$*") >> {asked}\nexit 1\n'
    (Path(path) / "npm").write_text(script)
    (Path(path) / "npm").chmod(0o755)
    done = fetch(repo / "scripts" / "fetch-clients", tmp_path, path)
    assert done.returncode == 0, done.stderr
    calls = [line.split("\t") for line in asked.read_text().splitlines()]
    packed = [args[2] for args in calls if args[0] == "pack"]
    assert packed == [f"@anthropic-ai/claude-code-linux-x64@{v}" for v in ("9.0.1", "9.0.2")]
    monkeypatch.setattr(harness, "VERSIONS_FILE", repo / ".ci" / "client-versions")
    assert harness.pinned_versions() == ["9.0.1"]
    assert harness.pinned_versions(suite="mods") == ["9.0.1", "9.0.2"]
    assert harness.pinned_versions(suite="goal") == ["9.0.1"]
    assert harness.pinned_versions("codex", suite="mods") == ["1.0.0"]


def test_every_suite_named_in_the_pins_asks_for_its_versions() -> None:
    lines = (REPO / ".ci" / "client-versions").read_text(encoding="utf-8").splitlines()
    suites = {parts[2] for parts in map(str.split, lines) if len(parts) == 3}
    sources = "".join(path.read_text() for path in (REPO / "tests" / "e2e").glob("*.py"))
    assert {suite for suite in suites if f'suite="{suite}"' not in sources} == set()
