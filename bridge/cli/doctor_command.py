"""`ccbridge doctor`: is everything in place for ccbridge to run?"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from bridge.cli.output import AGENT_HOSTS, mark, project_of, say

if TYPE_CHECKING:
    from bridge.commands.doctor import Finding


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the findings as a JSON list.")
@click.option(
    "--host",
    type=click.Choice(AGENT_HOSTS),
    default="claude-code",
    help="Check ccbridge's registration with this agent instead (docs/hosts.md).",
)
def doctor(as_json: bool, host: str = "claude-code") -> None:
    """Check that Claude Code will run ccbridge, and ccbridge your hooks.

    \b
    Checks, in order:
      claude        is `claude` on PATH, and which version
      onFailure     does that version honour onFailure "block" (2.1.295 or later)
      registration  which settings files register ccbridge, for which events
      starts        does each registered command start and answer a harmless event
      config        is every config layer valid, does every native policy load
      audit         can the audit log be written
      twice         is any hook configured twice (run by CC and by ccbridge)
      events        are hooks configured for an event ccbridge is not registered for
                    (Claude Code never sends it to ccbridge, so they never run)
      protection    the protection level: `wall` when the CC settings in force (every layer)
                    run Bash in Claude Code's sandbox with no way out, keep every path ccbridge
                    keeps (config layers, CC settings, state, cache, plugin and mod
                    directories, sub-hook scripts) out of the agent's reach, and bubblewrap
                    and socat work here (`bwrap --unshare-all true`); else `tripwire` (text
                    judgement only), naming each missing piece and its fix
    Exits 1 when any check fails.

    \b
    Example:
      ccbridge doctor
    """
    if host != "claude-code":
        from bridge.commands import agents

        report(agents.diagnose(host, os.environ, project_of(os.environ)), as_json)
        return
    from bridge.commands.doctor import diagnose

    report(diagnose(os.environ, project_of(os.environ)), as_json)


def report(findings: Sequence[Finding], as_json: bool) -> None:
    """Print the findings; exit 1 when any failed. Any agent's doctor too."""
    if as_json:
        say(json.dumps([finding.to_json() for finding in findings], indent=2))
    else:
        for finding in findings:
            say(f"{mark(finding.level)}  {finding.topic:<12} {finding.message}")
    if any(finding.level == "fail" for finding in findings):
        raise SystemExit(1)
