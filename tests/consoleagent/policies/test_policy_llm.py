"""The OpenAI-compatible chat policy against a fake chat-completions server.

The fake server is the one test double this project allows: a remote LLM API cannot run here.
It is still a real HTTP server (a FastAPI app under Uvicorn on 127.0.0.1, random port) that the
real ``openai`` client talks to, answering from a script and recording every request, so the
requests, retries, timeouts and error handling tested here are the real ones.
"""

from __future__ import annotations

import asyncio
import base64
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from consoleagent.actions.schema import describe_actions, tool_schemas
from consoleagent.observation.types import HistoryEntry, Mark, Observation
from consoleagent.policies.llm import LLMError, LLMPolicy
from consoleagent.policies.registry import make_policy, parse_option_pairs
from consoleagent.policies.scripted import ScriptedPolicy


@dataclass
class Reply:
    content: str | None = "Thought: ok\nAction: click(3)"
    status: int = 200
    delay_s: float = 0.0
    tool_calls: list[dict[str, Any]] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    usage: tuple[int, int] = (120, 15)


class FakeChatServer:
    """POST /v1/chat/completions answering scripted replies in order (the last one repeats)."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.replies: deque[Reply] = deque()
        self.app = FastAPI()
        self.app.post("/v1/chat/completions")(self._chat)

    async def _chat(self, request: Request) -> JSONResponse:
        self.requests.append({"body": await request.json(), "headers": dict(request.headers)})
        reply = self.replies.popleft() if len(self.replies) > 1 else (self.replies[0] if self.replies else Reply())
        if reply.delay_s:
            await asyncio.sleep(reply.delay_s)
        if reply.status != 200:
            error = {"message": f"scripted failure {reply.status}", "type": "error", "code": str(reply.status)}
            return JSONResponse({"error": error}, status_code=reply.status, headers=reply.headers)
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            message["tool_calls"] = [{"id": f"call_{i}", "type": "function", "function": call}
                                     for i, call in enumerate(reply.tool_calls)]
        prompt, completion = reply.usage
        return JSONResponse({
            "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()), "model": "fake-model",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if reply.tool_calls else "stop"}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
        })

    def script(self, *replies: Reply) -> None:
        self.replies = deque(replies)
        self.requests.clear()


class _Server(uvicorn.Server):
    def install_signal_handlers(self) -> None:  # running in a thread
        pass


@pytest.fixture(scope="module")
def fake() -> Iterator[tuple[FakeChatServer, str]]:
    chat = FakeChatServer()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    server = _Server(uvicorn.Config(chat.app, log_level="warning", timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the fake chat server did not start"
        time.sleep(0.02)
    yield chat, url
    server.should_exit = True
    thread.join(timeout=5)
    sock.close()


def policy(url: str, **options: Any) -> LLMPolicy:
    options = {"api_key": "sk-test", "backoff_s": 0.01, "max_backoff_s": 0.05, **options}
    return LLMPolicy("fake-model", base_url=url, **options)


def observation(screenshot: bytes | None = None) -> Observation:
    return Observation(url="http://console.test/vpc/vpcs", title="VPCs", text='# VPCs\n[3] link "Create VPC"',
                       marks=[Mark(3, "link", "Create VPC")], screenshot=screenshot, goal="Create a VPC named web",
                       document=["Click **Create VPC**."], document_step=1,
                       history=[HistoryEntry(1, "click(2)", "ok")])


def test_request_and_decision(fake: tuple[FakeChatServer, str]) -> None:
    chat, url = fake
    chat.script(Reply("Thought: The Create VPC link is [3].\nStep: 1\nAction: click(3)", usage=(321, 17)))
    obs = observation(screenshot=b"\x89PNG fake")  # vision is off: no image is sent
    decision = policy(url, temperature=0.2, max_tokens=100).act(obs)
    assert (decision.action, decision.thought, decision.document_step) == ("click(3)", "The Create VPC link is [3].", 1)
    assert decision.usage == {"prompt_tokens": 321, "completion_tokens": 17}
    assert decision.latency_s > 0 and decision.meta["attempts"] == 1
    assert decision.raw.startswith("Thought: The Create VPC link")
    (request,) = chat.requests
    body = request["body"]
    assert request["headers"]["authorization"] == "Bearer sk-test"
    assert (body["model"], body["temperature"], body["max_tokens"]) == ("fake-model", 0.2, 100)
    assert "tools" not in body
    system, user = body["messages"]
    assert system["role"] == "system"
    assert describe_actions() in system["content"]
    assert "Thought:" in system["content"] and "report_discrepancy" in system["content"]
    assert "[12]" in system["content"]  # the page format is explained with an example
    assert user == {"role": "user", "content": obs.render()}
    assert "## Previous actions\n1. click(2) -> ok" in user["content"]


def test_vision_sends_the_marked_screenshot(fake: tuple[FakeChatServer, str]) -> None:
    chat, url = fake
    chat.script(Reply())
    png = b"\x89PNG\r\n\x1a\n-marked-screenshot"
    policy(url, vision=True).act(observation(screenshot=png))
    user = chat.requests[0]["body"]["messages"][1]
    text, image = user["content"]
    assert text == {"type": "text", "text": observation().render()}
    assert image == {"type": "image_url",
                     "image_url": {"url": "data:image/png;base64," + base64.b64encode(png).decode()}}
    assert "screenshot" in chat.requests[0]["body"]["messages"][0]["content"]


def test_tool_calling(fake: tuple[FakeChatServer, str]) -> None:
    chat, url = fake
    call = {"name": "type", "arguments": json.dumps({"id": 7, "text": "web-01"})}
    chat.script(Reply("The name field is [7].\nStep: 2", tool_calls=[call]))
    decision = policy(url, tool_calling=True).act(observation())
    body = chat.requests[0]["body"]
    assert body["tools"] == tool_schemas()
    assert "call exactly one of the tools" in body["messages"][0]["content"]
    assert (decision.action, decision.thought, decision.document_step) == ('type(7, "web-01")',
                                                                           "The name field is [7].", 2)
    assert decision.meta["tool_calls"] == [call]

    chat.script(Reply(None, tool_calls=[{"name": "click", "arguments": '{"id": "x"}'}]))
    bad = policy(url, tool_calling=True).act(observation())
    assert bad.action == "" and "id" in bad.meta["parse_error"]

    chat.script(Reply("Thought: no tool today\nAction: scroll(\"down\")"))  # a model that wrote the action as text
    assert policy(url, tool_calling=True).act(observation()).action == 'scroll("down")'


def test_retries_transient_errors_then_succeeds(fake: tuple[FakeChatServer, str]) -> None:
    chat, url = fake
    chat.script(Reply(status=500), Reply(status=429, headers={"retry-after": "0.01"}), Reply(status=503), Reply())
    decision = policy(url, max_retries=4).act(observation())
    assert decision.action == "click(3)"
    assert len(chat.requests) == 4 and decision.meta["attempts"] == 4


def test_gives_up_after_max_retries(fake: tuple[FakeChatServer, str]) -> None:
    chat, url = fake
    chat.script(Reply(status=502))
    with pytest.raises(LLMError, match=r"failed 3 times; last error: HTTP 502") as err:
        policy(url, max_retries=2).act(observation())
    assert err.value.transient and err.value.status == 502
    assert len(chat.requests) == 3


def test_unauthorized_fails_at_once_with_a_clear_message(fake: tuple[FakeChatServer, str]) -> None:
    chat, url = fake
    chat.script(Reply(status=401), Reply())
    with pytest.raises(LLMError) as err:
        policy(url).act(observation())
    message = str(err.value)
    assert "HTTP 401" in message and "CONSOLEAGENT_API_KEY" in message and "fake-model" in message
    assert not err.value.transient and err.value.status == 401
    assert len(chat.requests) == 1

    chat.script(Reply(status=404))
    with pytest.raises(LLMError, match="check the model name and the base URL"):
        policy(url).act(observation())
    assert len(chat.requests) == 1


def test_timeout_is_retried_then_reported(fake: tuple[FakeChatServer, str]) -> None:
    chat, url = fake
    chat.script(Reply(delay_s=1.5))
    started = time.monotonic()
    with pytest.raises(LLMError, match=r"failed 2 times; last error: no answer within 0.3 s") as err:
        policy(url, timeout_s=0.3, max_retries=1).act(observation())
    assert err.value.transient
    assert time.monotonic() - started < 2.5  # two 0.3 s tries; waiting out both 1.5 s answers would take 3 s
    assert len(chat.requests) == 2

    chat.script(Reply(delay_s=1.0), Reply())  # a slow first answer, then a good one
    assert policy(url, timeout_s=0.3, max_retries=1).act(observation()).action == "click(3)"


def test_answer_without_action(fake: tuple[FakeChatServer, str]) -> None:
    chat, url = fake
    chat.script(Reply("Thought: I am not sure what to do here."))
    decision = policy(url).act(observation())
    assert decision.action == ""
    assert decision.thought == "I am not sure what to do here."
    assert decision.meta["parse_error"].startswith("no action found")
    assert decision.usage == {"prompt_tokens": 120, "completion_tokens": 15}


def test_api_key_from_the_environment(fake: tuple[FakeChatServer, str], monkeypatch: pytest.MonkeyPatch) -> None:
    chat, url = fake
    chat.script(Reply())
    monkeypatch.setenv("CONSOLEAGENT_API_KEY", "sk-from-env")
    LLMPolicy("fake-model", base_url=url).act(observation())
    assert chat.requests[0]["headers"]["authorization"] == "Bearer sk-from-env"
    monkeypatch.delenv("CONSOLEAGENT_API_KEY")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(LLMError, match="no API key"):
        LLMPolicy("gpt-4o")


def test_registry_builds_policies_from_cli_strings(fake: tuple[FakeChatServer, str]) -> None:
    chat, url = fake
    options = parse_option_pairs(["model=fake-model", f"base_url={url}", "api_key=sk-cli", "vision=true",
                                  "max_tokens=64", "temperature=0.5", "history_limit=3"])
    llm = make_policy("llm", **options)
    assert isinstance(llm, LLMPolicy)
    assert (llm.vision, llm.max_tokens, llm.temperature, llm.history_limit) == (True, 64, 0.5, 3)
    chat.script(Reply())
    assert llm.act(observation()).action == "click(3)"
    assert make_policy("docfollower", max_waits="4").max_waits == 4
    scripted = make_policy("scripted", actions="click(1),back()")
    assert isinstance(scripted, ScriptedPolicy) and scripted.actions == ["click(1)", "back()"]
    with pytest.raises(ValueError, match="has no option 'modle'; its options: model, base_url"):
        make_policy("llm", modle="x")
    with pytest.raises(ValueError, match="needs option\\(s\\): model"):
        make_policy("llm")
    with pytest.raises(ValueError, match="cannot read 'maybe' as bool"):
        make_policy("llm", model="m", base_url=url, vision="maybe")
    with pytest.raises(ValueError, match="unknown policy 'gpt'"):
        make_policy("gpt")


def test_scripted_policy() -> None:
    scripted = ScriptedPolicy(["click(1)", "not an action"])
    scripted.reset("goal")
    obs = Observation(url="http://x/", title="", text="", step=1, document_step=2)
    assert [scripted.act(obs).action for _ in range(4)] == ["click(1)", "not an action",
                                                             'task_complete("script finished")',
                                                             'task_complete("script finished")']
    assert scripted.act(obs).document_step == 2 and len(scripted.observations) == 5
    scripted.reset("again")
    assert scripted.act(obs).action == "click(1)"
