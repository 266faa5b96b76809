"""The `--host codex|gemini` forms of install, uninstall and doctor (bridge.commands.agents)."""

from __future__ import annotations

import os
import sys

import click

from bridge.cli.doctor import report
from bridge.cli.install import write_install
from bridge.cli.output import project_of, say
from bridge.cli.uninstall import uninstall_from
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
    if write_install(plan, where, env, dry_run):
        for finding in agents.diagnose(name, env, project_of(env)):
            if finding.topic in ("codex", "fail-open"):
                say(f"note: {finding.message}")


def uninstall(name: str, scope: installing.Scope, dry_run: bool) -> None:
    try:
        where = agents.target(name, scope, os.environ, project_of(os.environ))
    except installing.InstallError as error:
        raise click.ClickException(str(error)) from None
    uninstall_from(where, dry_run)


def doctor(name: str, as_json: bool) -> None:
    report(agents.diagnose(name, os.environ, project_of(os.environ)), as_json)
