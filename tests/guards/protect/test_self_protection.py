"""Self-protection beyond writes: the agent cannot touch ccbridge's state or forge hook events."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.guards.protect import entries as protected_entries
from bridge.guards.protect import protect_paths
from bridge.guards.protect.entries import Entry
from bridge.guards.protect.protect_paths import self_protection_guard
from bridge.paths import protected_roots
from bridge.pipeline import Ask, Execution, Guard
from tests.support import verdicts
from tests.support.sandbox import Sandbox, encode, pre_tool_use


@pytest.fixture
def state(tmp_path: Path) -> Path:
    directory = tmp_path / "state" / "ccbridge"
    directory.mkdir(parents=True)
    (directory / "goals.sqlite3").write_bytes(b"")
    return directory


def judge(state: Path, command: str, cwd: str = "/work") -> str | Ask | None:
    guard = self_protection_guard([], [], [state])
    return verdicts.plain(guard(Execution.create("Bash", {"command": command}, cwd=cwd)))


@pytest.mark.parametrize(
    "command",
    [
        'printf \'{"hook_event_name":"UserPromptSubmit"}\' | ccbridge run',
        "/usr/local/bin/ccbridge run --config x.yaml < event.json",
        "ccbridge explain < event.json",
        "ccbridge install --user",
        "ccbridge",
        "python3 -m bridge run",
        "python -m bridge.cli.goal_command get",
        "python3 -c 'from bridge.goal.cc import on_user_prompt'",
        "echo 'ccbridge run < e.json' > /tmp/forge.sh && sh /tmp/forge.sh",
        "sudo -u me ccbridge run",
    ],
)
def test_running_ccbridge_is_denied(state: Path, command: str) -> None:
    verdicts.denied(judge(state, command), "ccbridge self-protection")


@pytest.mark.parametrize(
    "command",
    [
        "sqlite3 {state}/goals.sqlite3 'INSERT INTO session_events VALUES (1)'",
        "cat {state}/goals.sqlite3",
        "cd {state} && sqlite3 goals.sqlite3",
        "cd {state}/.. && sqlite3 ccbridge/goals.sqlite3",
        "sqlite3 {parent}/st*/ccbridge/goals.sqlite3",
        "python3 -c \"import sqlite3; sqlite3.connect('{state}/goals.sqlite3')\"",
        "echo $(ls {state})",
    ],
)
def test_naming_the_state_is_denied(state: Path, command: str) -> None:
    text = command.format(state=state, parent=state.parent.parent)
    verdicts.denied(judge(state, text), "state")


@pytest.mark.parametrize(
    "command",
    [
        "ccbridge goal get",
        "ccbridge goal update --id g1 --revision 3 --action complete",
        "ccbridge --version",
        "ccbridge check",
        "ccbridge test fixtures/",
        "git commit -m 'fix the ccbridge tests'",
        "python3 -m pytest tests",
        "ls -la && echo done",
        "cat README.md",
    ],
)
def test_ordinary_commands_pass(state: Path, command: str) -> None:
    assert judge(state, command) is None


@pytest.fixture
def roots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, dict[str, str]]:
    home, project = tmp_path / "home", tmp_path / "home" / "proj"
    project.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    env = {
        "HOME": str(home),
        "CCBRIDGE_CONFIG": str(tmp_path / "elsewhere" / "cc.yaml"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude-config"),
        "CCBRIDGE_CACHE_DIR": str(tmp_path / "cache"),
    }
    return home, project, env


@pytest.mark.parametrize(
    "path",
    [
        "{home}/.claude/ccbridge.yaml",
        "{project}/.claude/ccbridge.yaml",
        "{project}/.claude/ccbridge.local.yaml",
        "{project}/sub/.claude/ccbridge.local.yaml",
        "{tmp}/elsewhere/cc.yaml",
        "{tmp}/claude-config/settings.json",
        "{home}/.claude/settings.local.json",
        "{project}/.claude/settings.json",
        "/etc/claude-code/managed-settings.json",
        "{tmp}/cache/config-abc.json",
        "{home}/.local/state/ccbridge/goals.sqlite3",
    ],
)
def test_every_candidate_is_protected_whether_it_exists_or_not(
    roots: tuple[Path, Path, dict[str, str]], path: str
) -> None:
    home, project, env = roots
    guard = self_protection_guard(*protected_roots(env, project), env=env)
    target = path.format(home=home, project=project, tmp=home.parent)
    assert not Path(target).exists()
    write = Execution.create("Write", {"file_path": target, "content": "self_protection: false"})
    assert guard(write) is not None
    bash = Execution.create("Bash", {"command": f"echo x > {target}"}, cwd=str(project))
    assert guard(bash) is not None


@pytest.mark.parametrize(
    "path", ["{project}/src/app.py", "{project}/.claude/commands/review.md", "{home}/notes.md"]
)
def test_other_files_stay_writable(roots: tuple[Path, Path, dict[str, str]], path: str) -> None:
    home, project, env = roots
    guard = self_protection_guard(*protected_roots(env, project), env=env)
    target = path.format(home=home, project=project)
    assert guard(Execution.create("Write", {"file_path": target, "content": "x"})) is None


def test_the_cache_is_sealed_like_the_state(roots: tuple[Path, Path, dict[str, str]]) -> None:
    _home, project, env = roots
    guard = self_protection_guard(*protected_roots(env, project), env=env)
    cache = env["CCBRIDGE_CACHE_DIR"]
    code = f"import glob; print(glob.glob('{cache}/config-*.json'))"  # an attack's first step
    for command in (f"ls {cache}", f'python3 -c "{code}"', "cat $CCBRIDGE_CACHE_DIR/x.json"):
        reason = guard(Execution.create("Bash", {"command": command}, cwd=str(project)))
        assert isinstance(reason, str) and "state" in reason, command


SHELLISH = st.text(alphabet="ab./~$`'\"{},*?[]()<>|&; =-\\\nxcdrmpytho3", max_size=60)


@given(st.one_of(st.text(max_size=80), SHELLISH))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_the_strict_guard_never_raises(
    roots: tuple[Path, Path, dict[str, str]], command: str
) -> None:
    _home, project, env = roots
    guard = self_protection_guard(*protected_roots(env, project), env=env)
    result = guard(Execution.create("Bash", {"command": command}, cwd=str(project)))
    assert result is None or (
        isinstance(result, str) and result.startswith(("ccbridge self-protection", "cannot parse"))
    )


def test_protected_paths_are_resolved_only_when_a_write_is_judged(
    roots: tuple[Path, Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resolving every settings and config path (symlinks too) costs a hook call a millisecond,
    and most commands write nothing: they are resolved on the first write judged, once."""
    home, project, env = roots
    resolved: list[str] = []
    real_entries = protected_entries.entries_of

    def counted(spec: str | Path, *, tree: bool) -> Iterator[Entry]:
        resolved.append(str(spec))
        return real_entries(spec, tree=tree)

    monkeypatch.setattr(protect_paths, "entries_of", counted)
    monkeypatch.setattr(protected_entries, "entries_of", counted)
    settings, configs, own = protected_roots(env, project)
    guard = self_protection_guard(settings, configs, own, env=env)
    assert sorted(resolved) == sorted(own)  # the state, which any word may name
    for command in ("git status --short", "ls -l .claude", "cat .claude/settings.json"):
        assert guard(Execution.create("Bash", {"command": command}, cwd=str(project))) is None
    assert sorted(resolved) == sorted(own)
    write = f"echo x > {project}/.claude/settings.json"
    assert guard(Execution.create("Bash", {"command": write}, cwd=str(project))) is not None
    assert sorted(resolved) == sorted([*own, *settings, *configs])
    assert guard(Execution.create("Write", {"file_path": f"{home}/x.md", "content": ""})) is None
    assert len(resolved) == len(own) + len(settings) + len(configs)  # not again


def test_a_symlink_made_after_the_guard_is_still_followed(
    roots: tuple[Path, Path, dict[str, str]],
) -> None:
    """Paths are resolved when a write is judged, so a protected path that became a symlink
    since the guard was built protects its target too."""
    home, project, env = roots
    guard = self_protection_guard(*protected_roots(env, project), env=env)
    target = home / "elsewhere.json"
    (project / ".claude").mkdir(parents=True, exist_ok=True)
    (project / ".claude" / "settings.local.json").symlink_to(target)
    write = Execution.create("Write", {"file_path": str(target), "content": "{}"})
    verdicts.denied(
        guard(write),
        f"ccbridge self-protection: Write to {target} is denied",
        "settings.local.json",
    )


@pytest.mark.parametrize(
    "command",
    [
        "D=/tmp/x; rm -rf $D",
        "D=/tmp/x && rm -rf ${D}/build",
        "for d in /tmp/a /tmp/b; do rm -rf $d; done",
    ],
)
def test_a_value_the_line_assigns_literally_is_put_in(state: Path, command: str) -> None:
    """The command's own text gives the values: what it writes is known, so it passes; the
    same write of a variable the line does not set is refused (fail closed)."""
    assert judge(state, command) is None
    unset = command.replace("D=/tmp/x; ", "").replace("D=/tmp/x && ", "")
    if unset != command:
        assert judge(state, unset) is not None


@pytest.mark.parametrize(
    "settings",
    [
        "home/.claude/settings.json",
        "home/.claude/settings.local.json",
        "project/.claude/settings.json",
        "project/.claude/settings.local.json",
    ],
)
def test_every_cc_settings_file_is_protected(tmp_path: Path, settings: str) -> None:
    """Through a whole hook call: a Write to any of CC's four settings files is refused."""
    sandbox = Sandbox(tmp_path)
    project = sandbox.project
    config = sandbox.write_config({}, self_protection=True)
    event = pre_tool_use(
        tool="Write", cwd=str(project), tool_input={"file_path": str(sandbox.root / settings)}
    )
    outcome = sandbox.call(config, encode(event), {"CLAUDE_PROJECT_DIR": str(project)})
    assert (outcome.exit_code, outcome.decision) == (2, "deny"), outcome
    assert "self-protection" in outcome.reason


# Inline interpreter code (bridge/guards/protect/interpreted.py): the shell commands it runs are
# judged as the line's commands are, the code itself read as shell for its literal commands.


def _settings_guarded(tmp_path: Path) -> tuple[Path, Guard]:
    settings_file = tmp_path / "proj" / ".claude" / "settings.json"
    settings_file.parent.mkdir(parents=True)
    settings_file.write_text("{}")
    state = tmp_path / "state" / "ccbridge"
    state.mkdir(parents=True)
    return tmp_path / "proj", self_protection_guard([settings_file], [], [state])


_WRITES_THROUGH_A_VALUE = "D={}/{}; touch ${{D}}ude/settings.js''on"


@pytest.mark.parametrize(
    ("interpreter", "code"),
    [
        ("python3 -c", f'import os; os.system("{_WRITES_THROUGH_A_VALUE}")'),  # a command it runs
        ("perl -e", _WRITES_THROUGH_A_VALUE),  # Perl that reads as shell: its literal commands
    ],
)
def test_a_command_inline_code_runs_is_judged_as_a_command(
    tmp_path: Path, interpreter: str, code: str
) -> None:
    """The code names no protected piece (`.cla` + `ude`, `settings.js''on`): only judging the
    command it runs, with the value it assigns put in, finds the write."""
    project, guard = _settings_guarded(tmp_path)
    for directory, refused in ((".cla", True), (".cache", False)):
        command = f"{interpreter} {shlex.quote(code.format(project, directory))}"
        verdict = verdicts.plain(guard(Execution.create("Bash", {"command": command}, cwd="/work")))
        if refused:
            verdicts.denied(verdict, "`touch ", "/.claude/settings.json", "matches protected")
        else:
            assert verdict is None, command


def test_inline_code_that_computes_the_program_it_starts_is_refused(state: Path) -> None:
    reason = verdicts.denied(
        judge(state, """python3 -c 'import os; os.system("$X run")'"""),
        "cannot tell what the inline code runs",
    )
    assert "command name" not in reason


@pytest.mark.parametrize(
    "code",
    [
        """python3 -c 'import os; os.system("ls")'""",  # a command the code runs
        "perl -e 'print 1'",  # the code read as shell
    ],
)
def test_after_inline_code_a_command_is_judged_as_a_command_again(state: Path, code: str) -> None:
    """The judgement of the code is over when the next command of the line comes."""
    verdicts.denied(judge(state, f"{code}; $CMD x"), "`$CMD x`", "the command name $CMD")


def test_a_word_of_code_read_as_shell_is_not_a_command_only_known_when_it_runs(
    state: Path,
) -> None:
    """`$h{k}` in a command's place is Perl, not a computed program name."""
    assert judge(state, "perl -e '$h{k} = 1; print $h{k}'") is None
