"""A policy backed by any OpenAI-compatible chat endpoint (OpenAI, vLLM, SGLang, Ollama, DashScope...).

Each turn is one self-contained request: the system prompt, then the rendered observation (which
already carries the goal, the document and the recent action history), plus the marked
screenshot for vision models. Rendering history into the observation instead of replaying chat
turns keeps prompting and training on the same single-step samples.

The answer is ReAct text (``Thought: ... / Action: ...``) read by ``parse_react``, or, with
``tool_calling``, one tool call validated by ``action_from_tool_call``. An answer without a usable
action is not a crash: the decision's action is ``""`` and ``meta["parse_error"]`` says why, so the
environment reports it to the agent as its error.

Transient API failures (connection errors, timeouts, 408/409/429, 5xx) are retried with
exponential backoff and jitter (honouring ``Retry-After``); permanent ones (400, 401, 403, 404,
422) raise :class:`LLMError` at once with a message that says what to fix. The SDK's own retries
are off so there is one retry policy, visible here.
"""

from __future__ import annotations

import base64
import os
import random
import time
from typing import Any

import openai

from consoleagent.actions.parser import ActionParseError
from consoleagent.actions.react import parse_react
from consoleagent.actions.schema import action_from_tool_call, tool_schemas
from consoleagent.observation.types import Observation
from consoleagent.policies.base import Decision, PolicyConfigError
from consoleagent.policies.prompts import system_prompt

API_KEY_VARIABLES = ("CONSOLEAGENT_API_KEY", "OPENAI_API_KEY")
TRANSIENT_STATUS = {408, 409, 429}
HINTS = {
    401: "check the API key (pass api_key, or set CONSOLEAGENT_API_KEY or OPENAI_API_KEY)",
    403: "the API key is not allowed to use this model or endpoint",
    404: "check the model name and the base URL (it usually ends in /v1)",
    400: "the endpoint rejected the request (an unsupported parameter? try tool_calling=False or vision=False)",
    422: "the endpoint rejected the request's parameters",
}


class LLMError(RuntimeError):
    """The chat endpoint could not answer. ``transient`` says whether retrying later might help:
    a runner should count the episode as an environment error, not as a policy failure."""

    def __init__(self, message: str, status: int | None = None, transient: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.transient = transient


class MissingAPIKey(LLMError, PolicyConfigError):
    """No key for a hosted endpoint: the user's configuration, not a failing service."""


def resolve_api_key(api_key: str | None, base_url: str | None) -> str:
    """The explicit key, else the environment's; a self-hosted endpoint (base_url given) may need none."""
    key = api_key or next((os.environ[v] for v in API_KEY_VARIABLES if os.environ.get(v)), None)
    if key:
        return key
    if base_url:
        return "EMPTY"  # vLLM, SGLang and Ollama accept any key
    raise MissingAPIKey("no API key: pass api_key (-O api_key=...), or set CONSOLEAGENT_API_KEY or OPENAI_API_KEY, "
                        "or give base_url for a self-hosted endpoint")


def _is_transient(exc: Exception) -> bool:
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in TRANSIENT_STATUS or exc.status_code >= 500
    return False


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


class LLMPolicy:
    """Ask a chat model for each action; see the module docstring."""

    @staticmethod
    def preflight(model: str | None = None, base_url: str | None = None, api_key: str | None = None,
                  **_: Any) -> None:
        """What can be checked before workers start: a key for a hosted endpoint (PolicyConfigError)."""
        resolve_api_key(api_key, base_url)

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None, vision: bool = False,
                 temperature: float = 0.0, max_tokens: int = 512, timeout_s: float = 60.0, max_retries: int = 4,
                 tool_calling: bool = False, history_limit: int = 12, backoff_s: float = 1.0,
                 max_backoff_s: float = 30.0, extra_body: dict[str, Any] | None = None) -> None:
        self.model = model
        self.name = f"llm:{model}"
        self.base_url = base_url
        self.vision = vision
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.tool_calling = tool_calling
        self.history_limit = history_limit
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.extra_body = extra_body
        self.client = openai.OpenAI(base_url=base_url, api_key=resolve_api_key(api_key, base_url), timeout=timeout_s,
                                    max_retries=0)
        self.system = system_prompt(vision=vision, tool_calling=tool_calling)
        self.reset("")

    def reset(self, goal: str, document: list[str] | None = None) -> None:
        self.goal = goal
        self.document = list(document or [])

    # -- one turn -------------------------------------------------------------------------------

    def messages(self, observation: Observation) -> list[dict[str, Any]]:
        """The chat messages for one observation (also what a training sample's prompt is)."""
        text = observation.render(history_limit=self.history_limit)
        content: str | list[dict[str, Any]] = text
        if self.vision and observation.screenshot:
            url = "data:image/png;base64," + base64.b64encode(observation.screenshot).decode("ascii")
            content = [{"type": "text", "text": text}, {"type": "image_url", "image_url": {"url": url}}]
        return [{"role": "system", "content": self.system}, {"role": "user", "content": content}]

    def act(self, observation: Observation) -> Decision:
        started = time.monotonic()
        request: dict[str, Any] = {"model": self.model, "messages": self.messages(observation),
                                   "temperature": self.temperature, "max_tokens": self.max_tokens}
        if self.tool_calling:
            request["tools"] = tool_schemas()
            request["tool_choice"] = "auto"
        if self.extra_body:
            request["extra_body"] = self.extra_body
        response, attempts = self._complete(request)
        decision = self._decide(response)
        decision.latency_s = time.monotonic() - started
        decision.meta["attempts"] = attempts
        usage = getattr(response, "usage", None)
        if usage is not None:
            decision.usage = {"prompt_tokens": int(usage.prompt_tokens or 0),
                              "completion_tokens": int(usage.completion_tokens or 0)}
        return decision

    def _complete(self, request: dict[str, Any]) -> tuple[Any, int]:
        """Call the endpoint, retrying transient failures; return the response and the attempts used."""
        for attempt in range(self.max_retries + 1):
            try:
                return self.client.chat.completions.create(**request), attempt + 1
            except openai.APIError as exc:
                if not _is_transient(exc):
                    raise self._permanent(exc) from exc
                if attempt >= self.max_retries:
                    raise LLMError(f"{self._where()} failed {attempt + 1} times; last error: {self._describe(exc)}",
                                   status=getattr(exc, "status_code", None), transient=True) from exc
                time.sleep(self._delay(attempt, exc))
        raise AssertionError("unreachable")  # pragma: no cover

    def _delay(self, attempt: int, exc: Exception) -> float:
        """Exponential backoff with full jitter, at least the server's Retry-After (bounded)."""
        delay = random.uniform(0.5, 1.0) * min(self.max_backoff_s, self.backoff_s * 2 ** attempt)
        hinted = _retry_after(exc)
        return min(self.max_backoff_s, max(delay, hinted)) if hinted is not None else delay

    def _where(self) -> str:
        return f"the chat endpoint {self.base_url or 'api.openai.com'} (model {self.model!r})"

    def _describe(self, exc: Exception) -> str:
        if isinstance(exc, openai.APITimeoutError):
            return f"no answer within {self.timeout_s} s"
        if isinstance(exc, openai.APIStatusError):
            return f"HTTP {exc.status_code}: {exc.message}"
        return f"{type(exc).__name__}: {exc}"

    def _permanent(self, exc: Exception) -> LLMError:
        status = getattr(exc, "status_code", None)
        hint = HINTS.get(status or 0, "")
        message = f"{self._where()} refused the request: {self._describe(exc)}" + (f"; {hint}" if hint else "")
        return LLMError(message, status=status, transient=False)

    # -- reading the answer ---------------------------------------------------------------------

    def _decide(self, response: Any) -> Decision:
        if not response.choices:
            return Decision(action="", meta={"parse_error": "the model returned no answer (no choices)"})
        choice = response.choices[0]
        message = choice.message
        content = message.content or ""
        meta: dict[str, Any] = {"finish_reason": choice.finish_reason}
        calls = getattr(message, "tool_calls", None) or []
        if self.tool_calling and calls:
            return self._from_tool_calls(calls, content, meta)
        react = parse_react(content)
        if react.action is None:
            meta["parse_error"] = react.error or "no action found"
        return Decision(action=react.action or "", thought=react.thought, raw=content,
                        document_step=react.document_step, meta=meta)

    def _from_tool_calls(self, calls: list[Any], content: str, meta: dict[str, Any]) -> Decision:
        react = parse_react(content) if content.strip() else None
        thought = react.thought if react else ""
        step = react.document_step if react else None
        raw = content + "".join(f"\n<tool_call>{c.function.name}({c.function.arguments})" for c in calls)
        meta["tool_calls"] = [{"name": c.function.name, "arguments": c.function.arguments} for c in calls]
        if len(calls) > 1:
            meta["parse_error"] = f"call exactly one tool per turn; you called {len(calls)}"
            return Decision(action="", thought=thought, raw=raw, document_step=step, meta=meta)
        call = calls[0].function
        try:
            action = str(action_from_tool_call(call.name, call.arguments))
        except ActionParseError as exc:
            meta["parse_error"] = str(exc)
            action = ""
        return Decision(action=action, thought=thought, raw=raw, document_step=step, meta=meta)
