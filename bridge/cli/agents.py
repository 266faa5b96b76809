"""The `--host codex|gemini` forms of install, uninstall and doctor (bridge.commands.agents)."""

from __future__ import annotations

import json
import os
import sys

import click

from bridge.cli.install import show
from bridge.cli.output import mark, project_of, say
from bridge.commands import agents
from bridge.commands import install as installing


def install(name: str, scope: installing.Scope, dry_run: bool) -> None:
    env = os.environ
    try:
        spec = agents.agent(name)
        where = agents.target(name, scope, env, project_of(env))
        run = agents.command(installing.ccbridge_executable(sys.argv[0]), name)
        settings = installing.read_bytes(where.settings)
        config = installing.read_bytes(where.config)
        plan = agents.plan_install(spec, where, settings, config, run)
    except installing.InstallError as error:
        raise click.ClickException(str(error)) from None
    if not plan.changed:
        say(f"ccbridge is already installed in {where.settings}; nothing to change")
        return
    show(plan, dry_run)
    if dry_run:
        say("dry run: nothing was written")
        return
    backup = installing.backup_file(env, where.settings)
    try:
        installing.write_backup(
            backup, installing.next_backup(installing.load_backup(backup), plan)
        )
        installing.apply(plan)
    except (OSError, installing.InstallError) as error:
        raise click.ClickException(f"install failed: {error}") from None
    moved = sum(len(group["hooks"]) for groups in plan.moved.values() for group in groups)
    say(
        f"installed ccbridge for {name} in {where.settings}"
        + (f"; moved {moved} hook(s) into {where.config}" if moved else "")
    )
    for finding in agents.diagnose(name, env, project_of(env)):
        if finding.topic in ("codex", "fail-open"):
            say(f"note: {finding.message}")


def uninstall(name: str, scope: installing.Scope, dry_run: bool) -> None:
    env = os.environ
    try:
        where = agents.target(name, scope, env, project_of(env))
        backup_path = installing.backup_file(env, where.settings)
        backup = installing.load_backup(backup_path)
        plan = installing.plan_uninstall(
            where,
            backup,
            installing.read_bytes(where.settings),
            installing.read_bytes(where.config),
        )
    except installing.InstallError as error:
        raise click.ClickException(str(error)) from None
    if not plan.changed and backup is None:
        say(f"ccbridge is not installed in {where.settings}; nothing to change")
        return
    show(plan, dry_run)
    if dry_run:
        say("dry run: nothing was written")
        return
    try:
        installing.apply(plan)
        installing.write_backup(backup_path, None)
    except OSError as error:
        raise click.ClickException(f"uninstall failed: {error}") from None
    say(f"uninstalled ccbridge from {where.settings}")


def doctor(name: str, as_json: bool) -> None:
    findings = agents.diagnose(name, os.environ, project_of(os.environ))
    if as_json:
        say(json.dumps([finding.to_json() for finding in findings], indent=2))
    else:
        for finding in findings:
            say(f"{mark(finding.level)}  {finding.topic:<12} {finding.message}")
    if any(finding.level == "fail" for finding in findings):
        raise SystemExit(1)
