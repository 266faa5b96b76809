"""`ccbridge doctor`: is everything in place for ccbridge to run?"""

from __future__ import annotations

import json
import os

import click

from bridge.cli.output import mark, project_of, say


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the findings as a JSON list.")
def doctor(as_json: bool) -> None:
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
      sandbox       with self-protection or goals on: is Claude Code's Bash sandbox on, with
                    no way out, and keeps ccbridge's files and CC's settings out of reach
                    (without it, self-protection raises the cost of tampering but is not a
                    boundary)
    Exits 1 when any check fails.

    \b
    Example:
      ccbridge doctor
    """
    from bridge.commands.doctor import diagnose

    findings = diagnose(os.environ, project_of(os.environ))
    if as_json:
        say(json.dumps([finding.to_json() for finding in findings], indent=2))
    else:
        for finding in findings:
            say(f"{mark(finding.level)}  {finding.topic:<12} {finding.message}")
    if any(finding.level == "fail" for finding in findings):
        raise SystemExit(1)
