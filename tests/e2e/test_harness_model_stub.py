"""Checks of the test harness, not of ccbridge: the model stand-in (tests/e2e/model_stub.py)
itself, spoken to over loopback HTTP (no Claude Code and no ccbridge run). The e2e tests of
ccbridge trust its script and its recorded requests; these keep that trust earned."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from .model_stub import SCRIPT_DONE_REPLY, SIDE_REPLY, ModelStub, Turn

TOOLS = [{"name": "Bash", "input_schema": {"type": "object"}}]


def _post(stub: ModelStub, path: str, body: dict[str, Any]) -> str:
    request = urllib.request.Request(
        stub.base_url + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return str(response.read().decode())


def _events(stream: str) -> list[dict[str, Any]]:
    return [
        json.loads(line.removeprefix("data: "))
        for line in stream.splitlines()
        if line.startswith("data: ")
    ]


def test_streams_a_scripted_tool_call_as_server_sent_events() -> None:
    with ModelStub([Turn.bash("touch marker")]) as stub:
        events = _events(_post(stub, "/v1/messages", {"stream": True, "tools": TOOLS}))

    assert [event["type"] for event in events] == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert events[1]["content_block"]["name"] == "Bash"
    assert json.loads(events[2]["delta"]["partial_json"])["command"] == "touch marker"
    assert events[4]["delta"]["stop_reason"] == "tool_use"


def test_side_requests_do_not_consume_the_script() -> None:
    with ModelStub([Turn.say("scripted")]) as stub:
        side = json.loads(_post(stub, "/v1/messages", {"messages": []}))
        main = json.loads(_post(stub, "/v1/messages", {"tools": TOOLS}))
        after = json.loads(_post(stub, "/v1/messages", {"tools": TOOLS}))

    assert side["content"][0]["text"] == SIDE_REPLY
    assert main["content"][0]["text"] == "scripted"
    assert after["content"][0]["text"] == SCRIPT_DONE_REPLY
    assert [request.main for request in stub.transcript.requests] == [False, True, True]


def test_reads_tool_results_and_reminders_from_the_last_main_request() -> None:
    conversation = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash"}]},
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "content": [{"type": "text", "text": "denied: because"}],
                    "is_error": True,
                }
            ],
        },
        {"role": "system", "content": [{"type": "text", "text": "hook context: note"}]},
    ]
    with ModelStub([]) as stub:
        _post(stub, "/v1/messages", {"tools": TOOLS, "messages": conversation})
        _post(stub, "/v1/messages/count_tokens", {"tools": TOOLS, "messages": []})

    [result] = stub.transcript.tool_results()
    assert (result.tool_use_id, result.content, result.is_error) == ("t1", "denied: because", True)
    assert stub.transcript.model_saw("hook context: note")
    assert not stub.transcript.model_saw("tool_use")
