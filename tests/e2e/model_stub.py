"""A loopback stand-in for the Anthropic Messages API, answering Claude Code from a script.

Each *main* request (one that offers tools) consumes the next scripted turn: tool calls or text.
Side requests CC makes on its own (title generation, quota probes: no tools offered) get a short
text without touching the script. Every request body is recorded so a test can read what CC sent
back to the model: tool results, their `is_error` flag and system-reminder text.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

SIDE_REPLY = "Stub title"
SCRIPT_DONE_REPLY = "Done."


@dataclass(frozen=True)
class ToolCall:
    name: str
    input: Mapping[str, Any]


@dataclass(frozen=True)
class Turn:
    """One scripted model answer: tool calls if any, else plain text."""

    tool_calls: tuple[ToolCall, ...] = ()
    text: str = ""

    @classmethod
    def bash(cls, command: str) -> Turn:
        return cls(tool_calls=(ToolCall("Bash", {"command": command, "description": "run"}),))

    @classmethod
    def say(cls, text: str) -> Turn:
        return cls(text=text)


@dataclass(frozen=True)
class ToolResult:
    tool_use_id: str
    content: str
    is_error: bool


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    body: Mapping[str, Any]
    main: bool

    def incoming_blocks(self) -> Iterator[Mapping[str, Any]]:
        """Content blocks of every message not written by the model: user turns, and the
        `system`-role messages newer CC versions put inside `messages` (hook feedback)."""
        for message in self.body.get("messages", []):
            if message.get("role") == "assistant":
                continue
            content = message.get("content")
            if isinstance(content, str):
                yield {"type": "text", "text": content}
            elif isinstance(content, list):
                yield from (block for block in content if isinstance(block, dict))


def _flatten(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = (part.get("text", "") for part in content if isinstance(part, dict))
        return "\n".join(_flatten(part) for part in parts)
    return ""


@dataclass
class Transcript:
    """What CC sent; read from the last main request, which carries the whole conversation."""

    requests: list[RecordedRequest] = field(default_factory=list)

    @property
    def main_requests(self) -> list[RecordedRequest]:
        return [request for request in self.requests if request.main]

    def _last_main(self) -> RecordedRequest | None:
        mains = self.main_requests
        return mains[-1] if mains else None

    def tool_results(self) -> list[ToolResult]:
        last = self._last_main()
        if last is None:
            return []
        return [
            ToolResult(
                tool_use_id=str(block.get("tool_use_id", "")),
                content=_flatten(block.get("content", "")),
                is_error=bool(block.get("is_error", False)),
            )
            for block in last.incoming_blocks()
            if block.get("type") == "tool_result"
        ]

    def incoming_texts(self) -> list[str]:
        """Every text the model was sent besides its own: prompts, reminders, tool results."""
        last = self._last_main()
        if last is None:
            return []
        texts: list[str] = []
        for block in last.incoming_blocks():
            if block.get("type") == "text":
                texts.append(str(block.get("text", "")))
            elif block.get("type") == "tool_result":
                texts.append(_flatten(block.get("content", "")))
        return texts

    def model_saw(self, needle: str) -> bool:
        return any(needle in text for text in self.incoming_texts())


def _is_main(body: Mapping[str, Any]) -> bool:
    return bool(body.get("tools"))


class ModelStub:
    """Serves one scripted conversation on 127.0.0.1; use as a context manager."""

    def __init__(self, script: Sequence[Turn]) -> None:
        self._script = list(script)
        self._lock = threading.Lock()
        self._ids = 0
        # Unique across runs: a resumed session's history holds earlier runs' tool calls.
        self._prefix = secrets.token_hex(4)
        self.transcript = Transcript()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        # A short poll interval keeps shutdown (once per CC run) from idling half a second.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def _next_id(self) -> int:
        self._ids += 1
        return self._ids

    def answer(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """Record the request and build the assistant message that answers it."""
        main = _is_main(body)
        with self._lock:
            self.transcript.requests.append(RecordedRequest(path, body, main))
            if not main:
                turn = Turn.say(SIDE_REPLY)
            elif self._script:
                turn = self._script.pop(0)
            else:
                turn = Turn.say(SCRIPT_DONE_REPLY)
            message_id = self._next_id()
            content: list[dict[str, Any]] = [
                {
                    "type": "tool_use",
                    "id": f"toolu_stub{self._prefix}{self._next_id():04d}",
                    "name": call.name,
                    "input": dict(call.input),
                }
                for call in turn.tool_calls
            ]
        if not content:
            content = [{"type": "text", "text": turn.text or SCRIPT_DONE_REPLY}]
        return {
            "id": f"msg_stub{message_id:04d}",
            "type": "message",
            "role": "assistant",
            "model": str(body.get("model", "claude-stub")),
            "content": content,
            "stop_reason": "tool_use" if turn.tool_calls else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }


def _sse_events(message: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    start = dict(message, content=[], stop_reason=None)
    start["usage"] = {"input_tokens": 10, "output_tokens": 1}
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(message["content"]):
        if block["type"] == "tool_use":
            opening = dict(block, input={})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            opening = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        yield (
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": opening},
        )
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": 5},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def _handler_for(stub: ModelStub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            """Keep test output quiet."""

        def _send_json(self, status: int, payload: Mapping[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        def _read_body(self) -> dict[str, Any]:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                return {}
            return body if isinstance(body, dict) else {}

        def do_GET(self) -> None:
            self._send_json(200, {"data": [], "has_more": False})

        do_HEAD = do_GET

        def do_POST(self) -> None:
            body = self._read_body()
            path = self.path.split("?", 1)[0]
            if path.endswith("/count_tokens"):
                self._send_json(200, {"input_tokens": 10})
                return
            if not path.endswith("/v1/messages"):
                self._send_json(200, {})
                return
            message = stub.answer(path, body)
            if not body.get("stream"):
                self._send_json(200, message)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            for event, data in _sse_events(message):
                self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()
            self.close_connection = True

    return Handler
