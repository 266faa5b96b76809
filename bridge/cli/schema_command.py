"""`ccbridge schema`: the config's JSON Schema."""

from __future__ import annotations

import json

import click

from bridge.cli.output import say


@click.command()
def schema() -> None:
    """Print the JSON Schema of ccbridge's config file, for editor completion.

    \b
    Example (VS Code with the YAML extension, in settings.json):
      ccbridge schema > ~/.claude/ccbridge.schema.json
      "yaml.schemas": {"~/.claude/ccbridge.schema.json": ".claude/ccbridge*.yaml"}
    """
    from bridge.config.schema import BridgeConfig
    from bridge.wire.event import SUBHOOK_EVENTS

    document = BridgeConfig.model_json_schema()
    # Events are free keys to pydantic; an editor should still flag a misspelt one.
    document["properties"]["hooks"]["propertyNames"] = {"enum": sorted(SUBHOOK_EVENTS)}
    say(json.dumps(document, indent=2))
