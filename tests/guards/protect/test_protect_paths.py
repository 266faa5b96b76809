"""The protected-paths guard: file tools, Bash writes, globs, symlinks and self-protection."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.guards.protect.protect_paths import (
    DEFAULT_SECRET_PATTERNS,
    protected_paths_guard,
    self_protection_guard,
)
from bridge.paths import CC_SETTINGS_PATTERNS
from bridge.pipeline import Ask, Execution, Guard
from tests.support import verdicts

PROJECT = "/work/project"
DEFAULTS = (*DEFAULT_SECRET_PATTERNS, *CC_SETTINGS_PATTERNS)


@pytest.fixture(autouse=True)
def home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/dev")


def bash(command: str, guard: Guard | None = None, cwd: str = PROJECT) -> str | None:
    guard = guard or protected_paths_guard(DEFAULTS)  # built after HOME is set: `~` expands
    result = guard(Execution.create("Bash", {"command": command}, cwd=cwd))
    assert result is None or isinstance(result, str)
    return result


def write(path: str, tool: str = "Write", cwd: str = PROJECT) -> str | Ask | None:
    key = "notebook_path" if tool == "NotebookEdit" else "file_path"
    guard = protected_paths_guard(DEFAULTS)
    return verdicts.plain(guard(Execution.create(tool, {key: path, "content": "x"}, cwd=cwd)))


@pytest.mark.parametrize(
    ("path", "entry"),
    [
        ("/work/project/.env", ".env"),
        (".env", ".env"),  # relative to the cwd
        ("/work/project/.env.production", ".env.*"),
        ("/work/project/.env.local", ".env.*"),
        ("/srv/tls/server.pem", "*.pem"),
        ("/srv/tls/private.key", "*.key"),
        ("/home/dev/.ssh/config", ".ssh/**"),
        ("/home/dev/.ssh", ".ssh/**"),
        ("/work/keys/id_rsa.pub", "id_rsa*"),
        ("/home/dev/.aws/credentials", ".aws/credentials"),
        ("~/.netrc", ".netrc"),
        ("~/.claude/settings.json", "~/.claude/settings*.json"),
        ("/home/dev/.claude/settings.local.json", "~/.claude/settings*.json"),
        ("/work/project/.claude/settings.json", "**/.claude/settings*.json"),
        ("sub/../.claude/settings.local.json", "**/.claude/settings*.json"),
        ("/work/project/src/../.env", ".env"),
    ],
)
def test_file_tools_cannot_write_protected_paths(path: str, entry: str) -> None:
    for tool in ("Write", "Edit", "MultiEdit", "NotebookEdit"):
        reason = write(path, tool)
        assert reason == f"protected path: {tool} to {path} is denied (matches {entry!r})"


@pytest.mark.parametrize(
    "path",
    [
        "/work/project/src/app.py",
        "/work/project/.envrc",
        "/work/project/env",
        "/work/project/keys.py",
        "/work/project/docs/ssh.md",
        "/work/project/.claude/commands/review.md",
        "/work/project/.claude/agents.json",
        "/home/dev/.aws/config",
    ],
)
def test_file_tools_may_write_other_paths(path: str) -> None:
    assert write(path) is None


@pytest.mark.parametrize("tool_input", [{}, {"file_path": 3}, {"file_path": ""}])
def test_a_file_tool_call_without_a_path_is_denied(tool_input: dict[str, object]) -> None:
    reason = protected_paths_guard(DEFAULTS)(Execution.create("Edit", tool_input))
    assert reason == "protected path: the Edit call has no file_path to check"


def test_other_tools_are_not_judged() -> None:
    read = Execution.create("Read", {"file_path": "/work/project/.env"})
    assert protected_paths_guard(DEFAULTS)(read) is None


DENIED = [
    "echo KEY=1 > .env",
    "echo KEY=1 >> /work/project/.env",
    "printf x &> ~/.netrc",
    "cat <<EOF > .env\nA=1\nEOF",
    "echo x | tee -a ~/.ssh/authorized_keys",
    "sed -i 's/a/b/' .env",
    "sed -i.bak -e 's/a/b/' .env",
    "sed --in-place 's/a/b/' .env",
    "perl -pi -e 's/a/b/' .env",
    "mv .env.new .env",
    "mv .env /tmp/stolen",  # removing it is a write too
    "cp evil.json ~/.claude/settings.json",
    "cp settings.json ~/.claude/",  # the destination is a directory: writes its settings.json
    "rm -f ~/.claude/settings.json",
    "rm ~/.claude/settings*.json",
    "ln -sf /tmp/evil .claude/settings.local.json",
    "truncate -s 0 server.key",
    "chmod 644 ~/.ssh/id_rsa",
    "install -m 600 x ~/.netrc",
    "touch .env",
    "dd if=/dev/zero of=.env",
    "rsync -a x/ ~/.ssh/",
    "python3 -c \"open('.env', 'w').write('x')\"",
    "python3 - <<'EOF'\nopen('/home/dev/.netrc', 'w')\nEOF",
    "node -e \"require('fs').writeFileSync('.env', '')\"",
    "sh -c 'echo x > .env'",
    'bash -c "cp x ~/.claude/settings.json"',
    "echo $(echo x > .env)",
    "true && sudo tee .env < x",
    "cd ~/.claude && echo {} > settings.json",  # after cd the relative name lands there
    "F=.env; echo x > $F",  # the target is unknown and a protected name is mentioned
    "echo x > /work/project/sub/../.env",
    "find . -name .env -delete",
    "find ~/.ssh -type f -exec rm {} +",
    "rm -rf ~/.ssh",  # a directory above a protected path
    "mv ~/.aws /tmp/aws",
    "chmod -R 777 ~",
    "tar -xf keys.tar -C ~/.ssh",
    "find /srv -name '*.pem' -delete",
    'awk \'BEGIN{print "x" > ".env"}\'',
    "sed -n 'w .env' input.txt",
    "cp -r dotfiles/. ~",
    "echo x > $'\\x2eenv'",
    "{cp,evil,.env}",
    "tee ~/.ss{h,x}/config < evil",
]


@pytest.mark.parametrize("command", DENIED)
def test_bash_cannot_write_protected_paths(command: str) -> None:
    reason = bash(command)
    assert reason is not None
    assert reason.startswith("protected path: ")
    assert "matches protected" in reason


ALLOWED = [
    "cat .env",  # reading is not this guard's business
    "cat .env.example",
    "grep KEY .env",
    "ls -la ~/.ssh",
    "sed 's/a/b/' .env",  # no -i: prints only
    "echo x > out.txt",
    "echo '.env' > names.txt",
    "echo x > notes/env.md",
    "git add .env.example",
    "python3 script.py .env",
    "python3 -c 'print(1)'",
    "cd /tmp && echo x > out.txt",
    "echo $HOME > out.txt",
    "cat ~/.claude/settings.json",
    "find . -name .env",
    "find . -name '*.pyc' -delete",
]


@pytest.mark.parametrize("command", ALLOWED)
def test_bash_may_read_and_write_elsewhere(command: str) -> None:
    assert bash(command) is None


def test_a_patch_is_judged_by_the_files_it_names(tmp_path: Path) -> None:
    patch = tmp_path / "change.patch"
    patch.write_text("--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-A=1\n+A=2\n")
    assert bash(f"git apply {patch}", cwd=str(tmp_path)) is not None
    assert bash(f"patch -p1 < {patch}", cwd=str(tmp_path)) is not None
    patch.write_text("--- a/src/x.py\n+++ b/src/x.py\n@@ -1 +1 @@\n-a\n+b\n")
    assert bash(f"git apply {patch}", cwd=str(tmp_path)) is None
    assert bash("git apply missing.patch", cwd=str(tmp_path)) is None  # no protected entry here


def test_copying_from_a_protected_path_is_denied_conservatively() -> None:
    # cp names the protected file among its words; we deny rather than tell source from target
    verdicts.denied(
        bash("cp .env.local /tmp/x.txt"),
        "protected path: `cp .env.local /tmp/x.txt` may write to /tmp/x.txt/.env.local",
    )


@pytest.mark.parametrize("command", ["echo 'x > .env", "echo $(ls", "echo )"])
def test_bash_it_cannot_parse_is_denied(command: str) -> None:
    reason = bash(command)
    assert reason is not None
    assert reason.startswith("cannot parse command safely: ")


def test_a_symlink_into_a_protected_directory_is_followed(tmp_path: Path) -> None:
    secret = tmp_path / "vault"
    secret.mkdir()
    (tmp_path / "alias").symlink_to(secret)
    guard = protected_paths_guard([secret])
    execution = Execution.create("Write", {"file_path": str(tmp_path / "alias" / "x")})
    assert guard(execution) is not None
    assert bash(f"echo x > {tmp_path}/alias/y", guard) is not None
    assert bash(f"echo x > {tmp_path}/other", guard) is None


def test_a_protected_symlink_protects_its_target(tmp_path: Path) -> None:
    target = tmp_path / "dotfiles" / "settings.json"
    target.parent.mkdir()
    target.write_text("{}")
    link = tmp_path / "settings.json"
    link.symlink_to(target)
    guard = protected_paths_guard([link])
    verdicts.denied(
        guard(Execution.create("Edit", {"file_path": str(target)})),
        f"protected path: Edit to {target} is denied",
        str(link),
    )
    verdicts.denied(
        guard(Execution.create("Edit", {"file_path": str(link)})),
        f"protected path: Edit to {link} is denied",
        str(link),
    )


def test_a_glob_in_the_command_is_expanded_like_the_shell_would(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text("{}")
    guard = protected_paths_guard([tmp_path / "settings.json"])
    assert bash("rm -f *", guard, cwd=str(tmp_path)) is not None
    assert bash("rm -f *.txt", guard, cwd=str(tmp_path)) is None


def test_self_protection(tmp_path: Path) -> None:
    state = tmp_path / "state"
    guard = self_protection_guard(
        ["/home/dev/.claude/settings.json", "/work/project/.claude/settings.local.json"],
        ["/home/dev/.claude/ccbridge.yaml"],
        state,
    )
    reason = bash(f"rm -rf {state}", guard)
    assert reason == (
        f"ccbridge self-protection: `rm -rf {state}` names {state}, inside ccbridge's state "
        f"{str(state)!r}, which the agent may not touch"
    )
    for path in (
        "/home/dev/.claude/settings.json",
        "/work/project/.claude/settings.local.json",
        "/home/dev/.claude/ccbridge.yaml",
        f"{state}/audit.jsonl",
    ):
        assert guard(Execution.create("Write", {"file_path": path})) is not None, path
    assert guard(Execution.create("Write", {"file_path": "/work/project/x.py"})) is None


def test_self_protection_takes_several_state_paths(tmp_path: Path) -> None:
    guard = self_protection_guard([], [], [tmp_path / "state", tmp_path / "audit.log"])
    assert bash(f"echo > {tmp_path}/audit.log", guard) is not None
    assert bash(f"echo > {tmp_path}/state/goals.json", guard) is not None
    assert bash(f"echo > {tmp_path}/elsewhere", guard) is None


def test_self_protection_defaults_to_the_claude_code_settings_files() -> None:
    guard = self_protection_guard()
    assert guard(Execution.create("Write", {"file_path": "/home/dev/.claude/settings.json"}))
    assert guard(Execution.create("Write", {"file_path": "/p/.claude/settings.local.json"}))


NAMES = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789._-", min_size=1).filter(
    lambda name: name not in (".", "..")
)


@given(st.lists(NAMES, min_size=1, max_size=4))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_everything_under_a_protected_directory_is_protected(names: list[str]) -> None:
    guard = protected_paths_guard(["/srv/state"])
    path = "/srv/state/" + "/".join(names)
    verdicts.denied(
        guard(Execution.create("Write", {"file_path": path})),
        f"protected path: Write to {path} is denied (matches '/srv/state')",
    )
    verdicts.denied(
        bash(f"echo x > {path}", guard),
        f"protected path: `echo x` may write to {path}",
        "/srv/state",
    )


@given(st.sampled_from(DENIED), st.lists(NAMES, max_size=3))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_more_protected_entries_never_allow_more(command: str, extra: list[str]) -> None:
    guard = protected_paths_guard([*DEFAULTS, *extra])
    verdicts.denied(bash(command, guard), "protected path: ", "which matches protected")


@given(st.sampled_from(DENIED), st.sampled_from(["true && ", "echo ok; ", "ls | head\n"]))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_benign_prefix_never_makes_a_protected_write_pass(command: str, prefix: str) -> None:
    verdicts.denied(bash(prefix + command), "protected path: ", "which matches protected")


@given(st.text())
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_the_guard_never_raises(text: str) -> None:
    bash(text)
    write(text)


def test_a_write_to_a_target_only_known_at_run_time_naming_a_protected_path_is_asked() -> None:
    """The target is only known when the command runs: a question, saying what is unknown;
    a value the line itself sets is known, so that write is denied outright."""
    guard = protected_paths_guard(DEFAULTS)
    verdict = guard(Execution.create("Bash", {"command": 'cat .env > "$OUT"'}, cwd=PROJECT))
    assert isinstance(verdict, Ask)
    assert verdict.reason.startswith("protected path: the command writes to $OUT, which cannot")
    assert "names .env" in verdict.reason
    assert bash("OUT=.env; cat x > $OUT") is not None
    assert bash('cat notes.txt > "$OUT"') is None
