"""Which deny holds beside a plugin's hooks module (a mod) that answers tool.check: ccbridge
registered in project settings and in a managed-settings.d drop-in, with and without the
built-in guard's managed options, on the real client. The table in docs/e2e-matrix.md
("ccbridge beside mods") and docs/fleet.md promise these rows."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from .harness import (
    ccbridge_executable,
    claude_binary,
    claude_cache,
    pinned_versions,
    run_claude,
    version_tuple,
)
from .hook_scripts import MARKER, TOUCH_MARKER, command_handler, hooks_block
from .model_stub import Turn

# Mods exist from 2.1.287 and onFailure from 2.1.295 (the drop-in requires it): older pinned
# versions have no row here. `claude-code VERSION mods` lines pin versions for this suite alone.
MOD_VERSIONS = [v for v in pinned_versions(suite="mods") if version_tuple(v) >= (2, 1, 295)]
DOC = Path(__file__).resolve().parents[2] / "docs" / "e2e-matrix.md"
FLEET = Path(__file__).resolve().parents[2] / "docs" / "fleet.md"

MODS = {
    # the control: a mod CC loads at all shows here as a deny of its own
    "deny": 'on("tool.check", ($, e, next) => ({ decision: "deny", reason: "mod-deny-5c1" }));',
    "allow": 'on("tool.check", ($, e, next) => ({ decision: "allow" }));',
    "throw": 'on("tool.check", ($, e, next) => { throw new Error("mod-threw-7d2"); });',
}
# What else the machine's managed settings hold, in one drop-in (for a managed row, in ccbridge's
# own): None is no drop-in at all beyond ccbridge's. The guard options belong to CC's built-in
# guard (a policy mod loaded ahead of every other) and sit under pluginConfigs, where it reads them.
GUARD = "cc-plugin-sec-default@builtin"
POLICIES: dict[str | None, dict[str, object]] = {
    None: {},
    "empty": {},
    "other": {"cleanupPeriodDays": 30},
    "managed-mods-only": {"pluginConfigs": {GUARD: {"options": {"allowManagedModsOnly": True}}}},
    "override-true": {
        "pluginConfigs": {GUARD: {"options": {"allowModsToOverrideDenyRules": True}}}
    },
    "override-false": {
        "pluginConfigs": {GUARD: {"options": {"allowModsToOverrideDenyRules": False}}}
    },
    "project-override": {"cleanupPeriodDays": 30},
}
# ... and what the project settings add: the guard option where a user can write it.
PROJECT_SETTINGS: dict[str | None, dict[str, object]] = {
    "project-override": POLICIES["override-true"],
}
CCBRIDGE = "ccbridge-deny-9f3"
REASONS = {
    "ccbridge": CCBRIDGE,
    "mod": "mod-deny-5c1",
    "rule": "Permission to use Bash with command touch marker has been denied",
}

# (registration, other managed settings, mod) -> (does the command run, whose reason reaches
# the model). *deny-rule*: no ccbridge; CC's own `permissions.deny` rule in the project settings
# refuses the command (the control: what the guard does to CC's own deny). Measured on 2.1.332
# and 2.1.333, CC and ccbridge run as root, the drop-in root's.
Key = tuple[str, str | None, str | None]
Outcome = tuple[bool, str | None]
EXPECTED: dict[Key, Outcome] = {
    ("project", None, None): (False, "ccbridge"),
    ("project", None, "deny"): (False, "mod"),
    ("project", None, "allow"): (True, None),  # the mod's allow overrides ccbridge's deny
    ("project", None, "throw"): (False, "ccbridge"),
    ("managed", None, None): (False, "ccbridge"),
    ("managed", None, "deny"): (False, "ccbridge"),  # managed hooks run before any mod
    ("managed", None, "allow"): (False, "ccbridge"),
    ("managed", None, "throw"): (False, "ccbridge"),
    ("project", None, "installed-allow"): (True, None),
    ("managed", None, "installed-allow"): (False, "ccbridge"),
    ("project", "empty", "allow"): (True, None),  # an empty drop-in is no managed settings
    # with other managed settings the deny held over a mod's allow, unless the option said not to
    ("project", "other", "allow"): (False, "ccbridge"),
    ("project", "other", "installed-allow"): (False, "ccbridge"),
    ("project", "other", "deny"): (False, "ccbridge"),
    ("project", "other", "throw"): (False, "ccbridge"),
    ("project", "project-override", "allow"): (False, "ccbridge"),  # not from a user's file
    ("project", "override-false", "allow"): (False, "ccbridge"),
    ("project", "override-true", "allow"): (True, None),
    ("project", "managed-mods-only", "deny"): (False, "ccbridge"),  # the mod had no say
    ("project", "managed-mods-only", "allow"): (False, "ccbridge"),
    ("project", "managed-mods-only", "installed-allow"): (False, "ccbridge"),
    ("managed", "override-false", "allow"): (False, "ccbridge"),
    ("managed", "override-true", "allow"): (False, "ccbridge"),
    ("managed", "managed-mods-only", "allow"): (False, "ccbridge"),
    ("deny-rule", None, None): (False, "rule"),
    ("deny-rule", None, "allow"): (True, None),
    ("deny-rule", "other", "allow"): (False, "rule"),
    ("deny-rule", "override-false", "allow"): (False, "rule"),
    ("deny-rule", "override-true", "allow"): (True, None),
}
# Rows whose outcome differs on one version: version -> {row: outcome}; empty while all agree.
BY_VERSION: dict[str, dict[Key, Outcome]] = {}


def expected(version: str, key: Key) -> Outcome:
    return BY_VERSION.get(version, {}).get(key, EXPECTED[key])


REGISTRATIONS = {
    "project": "project",
    "managed": "managed",
    "deny-rule": "none; a CC deny rule",
}
POLICY_LABELS = {
    None: "(none)",
    "empty": "an empty drop-in, `{}`",
    "other": "`cleanupPeriodDays: 30`",
    "managed-mods-only": "guard option `allowManagedModsOnly: true`",
    "override-true": "guard option `allowModsToOverrideDenyRules: true`",
    "override-false": "guard option `allowModsToOverrideDenyRules: false`",
    "project-override": "`cleanupPeriodDays: 30`; the project settings set guard option "
    "`allowModsToOverrideDenyRules: true`",
}
MOD_LABELS = {
    None: "(no mod)",
    "deny": "deny",
    "allow": "allow",
    "throw": "throws",
    "installed-allow": "allow, installed from a marketplace (user scope)",
}
OUTCOMES = {
    (False, "ccbridge"): "blocked; ccbridge's reason",
    (False, "mod"): "blocked; the mod's reason",
    (False, "rule"): "blocked; CC's deny-rule message",
    (True, None): "**ran**",
}


def render_table(versions: list[str], keys: list[Key] | None = None) -> str:
    """The docs' table of these rows (or of `keys`): one column per measured version."""
    head = ["ccbridge registered in", "other managed settings", "mod answers `tool.check` with"]
    lines = [
        "| " + " | ".join([*head, *(f"CC {v}" for v in versions)]) + " |",
        "|" + "---|" * (len(head) + len(versions)),
    ]
    for key in EXPECTED if keys is None else keys:
        registration, policy, mod = key
        cells = [REGISTRATIONS[registration], POLICY_LABELS[policy], MOD_LABELS[mod]]
        cells += [OUTCOMES[expected(version, key)] for version in versions]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


INSTALLED = "installed-"  # a mod kind with this prefix: installed from a marketplace, user scope


def plugin(root: Path, mod: str) -> Path:
    mod = mod.removeprefix(INSTALLED)
    directory = root / f"mod-{mod}"
    (directory / ".claude-plugin").mkdir(parents=True)
    (directory / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": f"mod-{mod}"}))
    (directory / "hooks").mkdir()
    (directory / "hooks" / "hooks.json").write_text(json.dumps({"modules": ["./register.js"]}))
    (directory / "hooks" / "register.js").write_text(
        f"export function register(on) {{\n  {MODS[mod]}\n}}\n"
    )
    return directory


def install(claude: Path, home: Path, source: Path) -> None:
    """Install the plugin at `source` as a user would: a local marketplace added to `home`'s
    Claude Code, the plugin installed from it at user scope."""
    (source.parent / ".claude-plugin").mkdir()
    (source.parent / ".claude-plugin" / "marketplace.json").write_text(
        json.dumps(
            {
                "name": "ccbridge-e2e",
                "owner": {"name": "ccbridge e2e"},
                "plugins": [{"name": source.name, "source": f"./{source.name}"}],
            }
        )
    )
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    for command in (
        ["marketplace", "add", str(source.parent)],
        ["install", f"{source.name}@ccbridge-e2e", "--scope", "user"],
    ):
        subprocess.run(
            [str(claude), "plugin", *command], env=env, check=True, capture_output=True, timeout=60
        )


# The build reads managed settings only from the system folder (the variable naming another is
# not honoured by the release binary), so a managed case runs CC in a mount namespace of its own
# whose /etc is an overlay (its changes kept in memory) holding the drop-in: CC and the hooks it
# starts see it, nothing else on the machine does, and nothing is left when the run ends. Where
# no such namespace can be made (no root, no overlayfs), the case skips, and under CI=true fails.
SYSTEM = Path("/etc/claude-code")
DROP_INS = SYSTEM / "managed-settings.d"
PRIVATE_ETC = """set -e
mount -t tmpfs ccbridge-e2e "$1"
mkdir "$1/upper" "$1/work"
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/upper,workdir=$1/work" /etc
mkdir -p /etc/claude-code/managed-settings.d
cp "$2" "/etc/claude-code/managed-settings.d/$3"
shift 3
exec "$@"
"""


def private_system(scratch: Path, name: str, data: dict[str, object]) -> list[str]:
    """The command prefix that runs a command with `data` as the drop-in `name` in a private
    /etc (see above); `scratch` is an empty folder of the test's for the namespace's mounts."""
    scratch.mkdir(parents=True, exist_ok=True)
    (scratch / "mnt").mkdir()
    (scratch / name).write_text(json.dumps(data))
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("no `unshare` (util-linux): a managed case needs a private mount namespace")
    prefix = [unshare, "--mount", "--propagation", "private", "--", "sh", "-c", PRIVATE_ETC]
    prefix += ["sh", str(scratch / "mnt"), str(scratch / name), name]
    probe = subprocess.run([*prefix, "true"], capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        pytest.skip(
            "cannot give CC a private /etc/claude-code (a mount namespace with /etc overlaid "
            f"needs root and overlayfs): {probe.stderr.strip()[-200:]}"
        )
    return prefix


def measure(
    claude: Path, tmp_path: Path, registration: str, policy: str | None, mod: str | None
) -> dict[str, object]:
    project = tmp_path / "project"
    project.mkdir()
    config = tmp_path / "ccbridge.yaml"
    config.write_text(
        "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n"
        f"        - {{type: command, command: 'echo {CCBRIDGE} >&2; exit 2', name: wall}}\n"
    )
    settings: dict[str, object] = {"permissions": {"allow": ["Bash(touch *)"]}}
    if registration == "deny-rule":
        settings["permissions"] = {"allow": ["Bash(touch *)"], "deny": ["Bash(touch *)"]}
    settings.update(PROJECT_SETTINGS.get(policy, {}))
    env = {"CCBRIDGE_CONFIG": str(config), "CCBRIDGE_STATE_DIR": str(tmp_path / "state")}
    entry = command_handler(ccbridge_executable(), timeout=60, onFailure="block")
    entry["command"] += " run"
    if registration == "project":
        settings["hooks"] = hooks_block("PreToolUse", entry)
    args = []
    home = tmp_path / "home"
    home.mkdir()
    if mod and mod.startswith(INSTALLED):
        install(claude, home, plugin(tmp_path / "plugins", mod))
    elif mod:
        args = ["--plugin-dir", str(plugin(tmp_path / "plugins", mod))]
    script = [Turn.bash(TOUCH_MARKER)]
    drop_in: dict[str, object] | None = None if policy is None else {}
    if registration == "managed":
        # the very drop-in `ccbridge install --managed` writes
        staged = tmp_path / "staged"
        subprocess.run(
            [ccbridge_executable(), "install", "--managed", "--managed-dir", str(staged)],
            check=True,
            capture_output=True,
        )
        installed: dict[str, Any] = json.loads((staged / "ccbridge.json").read_text())
        for groups in installed["hooks"].values():
            for group in groups:
                for handler in group["hooks"]:
                    assert handler["args"] == ["run"]  # exec form: CC must pass the args
        drop_in = installed
    wrap: list[str] = []
    if drop_in is not None:
        drop_in.update(POLICIES[policy])
        wrap = private_system(tmp_path / "system", "zz-ccbridge-e2e.json", drop_in)
    result = run_claude(claude, project, settings, script, env=env, args=args, home=home, wrap=wrap)
    results = result.requests.tool_results()
    log = tmp_path / "state" / "audit.jsonl"
    exported = (
        subprocess.run(
            [ccbridge_executable(), "audit", "--format", "otlp-json", "--file", str(log)],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, **env},
        ).stdout
        if log.is_file()
        else ""
    )
    return {
        "tool_use_id": results[0].tool_use_id if results else None,
        "otlp_tool_use_ids": {
            pair["value"]["stringValue"]
            for line in exported.splitlines()
            for logs in json.loads(line)["resourceLogs"]
            for scope in logs["scopeLogs"]
            for row in scope["logRecords"]
            for pair in row["attributes"]
            if pair["key"] == "tool_use_id"
        },
        "ran": (project / MARKER).exists(),
        "content": results[0].content if results else None,
        "audit": log.is_file(),
        "pre_tool_use_decisions": [
            record["final"]["decision"]
            for record in map(json.loads, log.read_text().splitlines() if log.is_file() else [])
            if record["event"] == "PreToolUse"
        ],
        "stderr": result.stderr[-400:],
    }


@pytest.mark.e2e
@pytest.mark.parametrize(("registration", "policy", "mod"), list(EXPECTED))
@pytest.mark.parametrize("version", MOD_VERSIONS)
def test_which_deny_holds(
    tmp_path: Path, version: str, registration: str, policy: str | None, mod: str | None
) -> None:
    claude = claude_binary(version)
    if claude is None:
        pytest.skip(f"Claude Code {version} is not in {claude_cache()}: run scripts/fetch-clients")
    seen = measure(claude, tmp_path, registration, policy, mod)
    ran, reason = expected(version, (registration, policy, mod))
    assert seen["ran"] is ran, seen
    assert seen["content"] is not None, seen  # the model was told the call's outcome
    for whose, text in REASONS.items():
        # the reason named is the one the model is told; the other is not
        assert (text in str(seen["content"])) is (whose == reason), seen
    if registration == "deny-rule":
        assert not seen["audit"], seen
        return
    assert seen["pre_tool_use_decisions"] == ["deny"], seen  # ccbridge ran and denied, every row
    # the OTLP export keys the call as CC does: the tool_use_id CC sent the model's call
    assert seen["otlp_tool_use_ids"] == {seen["tool_use_id"]}, seen


def test_the_documented_table_is_the_measured_one() -> None:
    text = DOC.read_text(encoding="utf-8").split("## ccbridge beside mods", 1)[1]
    text = text.split("\n## ", 1)[0]
    assert render_table(MOD_VERSIONS) in text
    prose = " ".join(text.split())
    assert f"Measured on Claude Code {' and '.join(MOD_VERSIONS)} " in prose
    # the prose says whether the versions agree, as the table does
    assert ("the versions agree on every row" in prose) is not any(BY_VERSION.values())


# The fleet guide's summary: what a mod's allow does to ccbridge's deny.
FLEET_ROWS = [k for k in EXPECTED if k[0] != "deny-rule" and k[2] in ("allow", "installed-allow")]


def test_the_fleet_guide_shows_the_measured_rows() -> None:
    text = FLEET.read_text(encoding="utf-8")
    assert render_table(MOD_VERSIONS, FLEET_ROWS) in text
    prose = " ".join(text.split())
    assert f"Measured on Claude Code {' and '.join(MOD_VERSIONS)}," in prose
    assert ("with the same result on every version" in prose) is not any(BY_VERSION.values())


def tree(root: Path) -> dict[str, bytes | None]:
    if not root.exists():
        return {}
    return {
        str(path.relative_to(root)): path.read_bytes() if path.is_file() else None
        for path in sorted(root.rglob("*"))
    }


@pytest.mark.e2e
def test_a_private_system_folder_is_seen_inside_and_leaves_the_machine_as_it_was(
    tmp_path: Path,
) -> None:
    before = tree(SYSTEM)
    wrap = private_system(tmp_path / "system", "zz-ccbridge-e2e.json", {"k": 1})
    inside = subprocess.run(
        [*wrap, "cat", str(DROP_INS / "zz-ccbridge-e2e.json")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(inside.stdout) == {"k": 1}
    assert tree(SYSTEM) == before  # nothing written on the machine
    assert [path.name for path in (tmp_path / "system" / "mnt").iterdir()] == []


if __name__ == "__main__":
    print(render_table(MOD_VERSIONS), render_table(MOD_VERSIONS, FLEET_ROWS), sep="\n", end="")
