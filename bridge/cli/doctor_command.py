"""`ccbridge doctor`: is everything in place for ccbridge to run?"""

from __future__ import annotations

import json
import os
import shutil
import textwrap
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


TOPIC_WIDTH = 12
MESSAGE_COLUMN = 4 + 2 + TOPIC_WIDTH + 1  # the mark, two spaces, the topic, a space


def report(findings: Sequence[Finding], as_json: bool) -> None:
    """Print the findings; exit 1 when any failed. Any agent's doctor too."""
    shown = readable(findings)
    if as_json:
        say(json.dumps([finding.to_json() for finding in shown], indent=2))
    else:
        width = max(60, min(shutil.get_terminal_size((100, 24)).columns, 120))
        for finding in shown:
            head = f"{mark(finding.level)}  {finding.topic:<{TOPIC_WIDTH}} "
            say(head + wrapped(as_text(finding), width).lstrip())
    if any(finding.level == "fail" for finding in findings):
        raise SystemExit(1)


def readable(findings: Sequence[Finding]) -> list[Finding]:
    """Each finding once, those of one topic together (in the order topics first appear), so a
    warning stands under the heading it is about."""
    unique = list(dict.fromkeys(findings))
    order = {topic: index for index, topic in reversed(list(enumerate(f.topic for f in unique)))}
    return sorted(unique, key=lambda finding: order[finding.topic])


def as_text(finding: Finding) -> str:
    """The message, then its list a line each (one line per kind of wall gap, not per path)."""
    from bridge.commands.doctor import grouped

    return "\n".join([finding.message, *(f"- {item}" for item in grouped(finding.items))])


def wrapped(message: str, width: int) -> str:
    """A finding's text in lines of `width`, each indented to the message column; a line of
    its own in the message (a list item, `- ...`) starts a line here too, its continuation
    indented under its text. A path longer than a line is never cut."""
    indent = " " * MESSAGE_COLUMN
    lines = []
    for part in message.split("\n"):
        hang = indent + ("  " if part.startswith("- ") else "")
        lines += textwrap.wrap(
            part,
            width,
            initial_indent=indent,
            subsequent_indent=hang,
            break_long_words=False,
            break_on_hyphens=False,
        ) or [indent]
    return "\n".join(lines)
