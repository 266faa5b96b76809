"""Without the wall, self-protection keeps the code around a sub-hook's script too, not only the
script: Python puts a script's directory first on sys.path (a `json.py` written beside
`hooks/guard.py` shadows `import json` in the hook), a shell script sources files, Node requires
them. Each attack spelling below writes such a file and must be denied; each look-alike writes
or reads elsewhere and must pass. Judged through the real executable, with the hooks configured
as a user writes them: the config is compiled, the kept paths travel in the compiled config."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support import verdicts

from .test_hook_scripts_kept import environment, run

HOOKS = [
    "python3 ${CLAUDE_PROJECT_DIR}/hooks/guard.py",  # its directory is kept
    "python3 ${CLAUDE_PROJECT_DIR}/root_guard.py",  # in the project's own: what it imports
    '"$CLAUDE_PROJECT_DIR"/tools/hook.sh',  # run directly; it sources ../lib/common.sh
    "node ${CLAUDE_PROJECT_DIR}/js/hook.js",  # it requires ../shared/util
]
USER_HOOK = "python3 ~/.claude/hooks/user_guard.py"

# Attacks on the code a hook loads, by several spellings: each must be denied.
REFUSED = [
    "echo 'import os' > hooks/json.py",
    "printf x >> hooks/json.py",
    "cat evil.py > {project}/hooks/json.py",
    "cat > hooks/json.py <<'EOF'\nimport os\nEOF",
    "cp evil.py hooks/json.py",
    "cp evil.py hooks/lib/",  # a package directory beside the script: kept with it
    "cp -r evilpkg hooks/json",
    "install -m 644 evil.py hooks/json.py",
    "rsync evil.py hooks/lib/",
    "dd if=evil.py of=hooks/json.py",
    "tee hooks/json.py < evil.py",
    "echo x | tee -a hooks/helper.py",
    "python3 -c \"open('hooks/json.py', 'w').write('import os')\"",
    "python3 -c \"import shutil; shutil.copy('evil.py', 'hooks/json.py')\"",
    "sed -i 's/a/b/' hooks/helper.py",
    "perl -pi -e 's/a/b/' hooks/helper.py",
    "mv evil.py hooks/json.py",
    "mv evil.py hooks/lib",
    "mv -t hooks/lib evil.py",
    "ln -s /tmp/evil.py hooks/json.py",
    "ln -sf evil.py hooks/helper.py",
    "touch hooks/json.py",
    "mkdir -p hooks/json && touch hooks/json/__init__.py",
    "rm hooks/helper.py",
    "cd hooks && echo x > json.py",
    "cd hooks; cp ../evil.py json.py",
    "cd src && echo x > ../hooks/json.py",
    "echo x > ./src/../hooks/json.py",
    "tar -xf evil.tar -C hooks/lib",
    "find hooks/lib -name '*.py' -exec sed -i s/a/b/ {{}} +",
    "bash -c 'echo x > hooks/json.py'",
    "echo x > {home}/.claude/hooks/json.py",
    "cp evil.py ~/.claude/hooks/lib/",
    "echo 'x = 1' > rootlib.py",  # imported by the script in the project's own directory
    "mkdir rootlib && echo x > rootlib/__init__.py",
    "echo x > tools/other.sh",
    "echo 'rm -rf ~' > lib/common.sh",  # sourced from beside the script's directory
    "echo x > js/node_modules/x.js",
    "echo 'module.exports = 1' > shared/util.js",  # required from outside the script's one
]
# Look-alikes: writing elsewhere in the project, reading the hook's code. Each must pass.
PASSED = [
    "echo x > src/json.py",
    "cp evil.py src/hooks/json.py",
    "echo x > hooksx/json.py",
    "cd src && echo x > models.py",  # (a relative name after `cd` is matched by its tail)
    "echo x > other.py",  # in the project's own directory, but not named by root_guard.py
    "mkdir -p src/lib && echo x > src/lib/common.sh",
    "echo x > shared/other.js",
    "echo x > ~/notes/json.py",
    "cat hooks/guard.py",
    "ls -la hooks tools",
    "grep -rn import hooks",
    "cp hooks/guard.py /tmp/backup.py",
]


def world(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """(home, project, environment) with the hooks above configured and their code in place."""
    home, project = tmp_path / "home", tmp_path / "p"
    files = {
        project / "hooks" / "guard.py": "import json\nimport helper\n",
        project / "hooks" / "helper.py": "X = 1\n",
        project / "hooks" / "lib" / "__init__.py": "",
        project / "root_guard.py": "import json\nimport rootlib\n",
        project / "tools" / "hook.sh": '#!/bin/sh\n. "$(dirname "$0")/../lib/common.sh"\n',
        project / "lib" / "common.sh": "true\n",
        project / "js" / "hook.js": "const u = require('../shared/util');\nrequire('fs');\n",
        project / "shared" / "util.js": "module.exports = 0;\n",
        project / "src" / "app.py": "",
        home / ".claude" / "hooks" / "user_guard.py": "import json\n",
        home / ".claude" / "hooks" / "lib" / "__init__.py": "",
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (project / ".claude").mkdir()
    (project / "tools" / "hook.sh").chmod(0o755)

    def config(commands: list[str]) -> str:
        entries = [{"type": "command", "command": command} for command in commands]
        return json.dumps({"hooks": {"PreToolUse": [{"matcher": "Read", "hooks": entries}]}})

    (project / ".claude" / "ccbridge.yaml").write_text(config(HOOKS))
    (home / ".claude" / "ccbridge.yaml").write_text(config([USER_HOOK]))
    env = environment(home, project, tmp_path)
    return home, project, env


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    return world(tmp_path_factory.mktemp("hook-dirs"))


def judged(place: tuple[Path, Path, dict[str, str]], tool: str, tool_input: object) -> str | None:
    """The self-protection reason `ccbridge run` denies the call with, or None if it passes."""
    _home, project, env = place
    code, reason = run(env, project, tool, tool_input)
    assert code in (0, 2), code
    if code == 0:
        return None
    assert reason.startswith("[self-protection] "), reason
    return reason


def bash(place: tuple[Path, Path, dict[str, str]], command: str) -> str | None:
    home, project, _env = place
    return judged(place, "Bash", {"command": command.format(home=home, project=project)})


@pytest.mark.parametrize("command", REFUSED)
def test_writing_the_code_beside_a_hook_script_is_refused(
    place: tuple[Path, Path, dict[str, str]], command: str
) -> None:
    verdicts.denied(bash(place, command), "[self-protection] ", "which matches protected")


@pytest.mark.parametrize("command", PASSED)
def test_writing_elsewhere_and_reading_the_hook_pass(
    place: tuple[Path, Path, dict[str, str]], command: str
) -> None:
    assert bash(place, command) is None


@pytest.mark.parametrize(
    "name",
    [
        "hooks/json.py",
        "hooks/helper.py",
        "hooks/json/__init__.py",
        "rootlib.py",
        "tools/other.sh",
        "lib/common.sh",
        "shared/util.js",
        "~/.claude/hooks/json.py",
    ],
)
def test_the_file_tools_cannot_write_it_either(
    place: tuple[Path, Path, dict[str, str]], name: str
) -> None:
    home, project, _env = place
    path = str(home / name[2:]) if name.startswith("~/") else str(project / name)
    assert judged(place, "Write", {"file_path": path, "content": "import os\n"}) is not None
    elsewhere = str(project / "src" / os.path.basename(name))
    assert judged(place, "Write", {"file_path": elsewhere, "content": "import os\n"}) is None
