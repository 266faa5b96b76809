"""A tiny MCP stdio server for the end-to-end suite: JSON-RPC 2.0, one message a line.

Its two tools really act, in the directory Claude Code starts it in: `write_file` writes a file,
`run_command` runs a shell command line. Claude Code starts MCP servers itself, outside the
sandbox it puts around the Bash tool, so nothing but a hook stands between them and a file.
Run as `python3 mcp_server.py`; standard library only.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

PROTOCOL = "2024-11-05"
TOOLS = [
    {
        "name": "write_file",
        "description": "Write text to a file.",
        "inputSchema": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    },
    {
        "name": "run_command",
        "description": "Run a shell command line.",
        "inputSchema": {
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        },
    },
]


def _call(name: str, arguments: dict[str, Any]) -> str:
    if name == "write_file":
        path = Path(str(arguments["path"]))
        path.write_text(str(arguments["content"]), encoding="utf-8")
        return f"wrote {len(str(arguments['content']))} characters to {path}"
    if name == "run_command":
        done = subprocess.run(
            ["/bin/sh", "-c", str(arguments["command"])],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        return f"exit {done.returncode}\n{done.stdout}{done.stderr}"
    raise ValueError(f"no tool {name!r}")


def _answer(request: dict[str, Any]) -> dict[str, Any] | None:
    method = request.get("method")
    if "id" not in request:  # a notification (notifications/initialized): no answer
        return None
    reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request["id"]}
    if method == "initialize":
        reply["result"] = {
            "protocolVersion": PROTOCOL,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "e2e-files", "version": "1.0.0"},
        }
    elif method == "tools/list":
        reply["result"] = {"tools": TOOLS}
    elif method == "tools/call":
        params = request.get("params") or {}
        try:
            text = _call(str(params.get("name")), dict(params.get("arguments") or {}))
            reply["result"] = {"content": [{"type": "text", "text": text}], "isError": False}
        except Exception as error:  # a tool's failure is its result, as MCP says
            reply["result"] = {"content": [{"type": "text", "text": str(error)}], "isError": True}
    elif method == "ping":
        reply["result"] = {}
    else:
        reply["error"] = {"code": -32601, "message": f"method not found: {method}"}
    return reply


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError:
            continue
        if not isinstance(request, dict):
            continue
        reply = _answer(request)
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
