"""The work of `ccbridge check` beyond the config's own checks (bridge.commands.doctor's
`config_problems`): the fix to suggest for a problem."""

from __future__ import annotations

# Fixes for pydantic's own messages; ccbridge's messages already say what to do.
_FIXES = (
    ("valid dictionary", "write a mapping (key: value lines) here"),
    ("valid list", "write a list (`- item` lines, or [a, b]) here"),
    ("valid string", "write text here (quote it if YAML reads it as something else)"),
    ("valid integer", "write a whole number here"),
    ("valid number", "write a number (seconds) here"),
    ("valid boolean", "write true or false here"),
    ("less than or equal to", "use a smaller value (a sub-hook's timeout is capped at 50 s)"),
    ("greater than", "use a larger value"),
    ("Input should be", "use one of the values named"),  # a choice: the values are in the text
    ("Field required", "add the missing key"),
    (
        "regular expression",
        "matchers are regexes unless they are plain names joined by `|`; "
        "check brackets and escapes",
    ),
    ("not valid YAML", "check the indentation and quoting around that line"),
    ("not valid JSON", "check commas and quotes around that line"),
    ("cannot load policy", "check the module path or file and the function name"),
    ("cannot read", "check the file exists and is readable"),
    (
        "may only tighten",
        "loosen it in ~/.claude/ccbridge.yaml (or a file named with --config); here, remove it",
    ),
    ("duplicate key", "keep one: move what the first one holds under the second, delete it"),
    ("cannot switch self-protection off", "remove the line; set it in ~/.claude/ccbridge.yaml"),
)


def fix_for(message: str) -> str | None:
    if "(" in message and message.rstrip().endswith(")"):
        return None  # the message carries its own fix in brackets
    for needle, fix in _FIXES:
        if needle in message:
            return fix
    return "see `ccbridge schema` for what this place accepts"
