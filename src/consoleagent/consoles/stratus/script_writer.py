"""Who writes ResourceCoder's provisioning scripts: the ``ScriptWriter`` protocol and an LLM behind
any OpenAI-compatible endpoint.

The writer sees the request, a reference of the SDK (how the sandbox hands it a client, the
template library's attributes, working create code from the templates as examples) and every
earlier attempt with the error it ended in, so a failed script is repaired rather than rewritten
blind. consoleagent describes the console through its SDK and templates only; it never reads the
console's internals (stratus's action registry) to build the prompt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

SANDBOX_CONTRACT = """\
You write one Python script that creates cloud resources through the console's SDK.
It runs in a restricted sandbox:
- a global `client` is ready: a stratus.sdk.Client authenticated as the account's provisioner.
  `client.call(product, action, **params)` returns the response dict or raises a StratusError
  subclass (`.code`, `.message`); `client.wait_for(resource_id, status, timeout=60)` polls until
  the resource reaches a status ("Available", "Running", "Stopped", ...);
  `client.get_resource(resource_id)` returns {{"ResourceId", "Status", ...}}.
- a global dict `params` holds parameters (often empty).
- put the ids of the created resources in the global dict `outputs`, e.g. outputs["vpc_id"] =
  vpc["VpcId"]. Each id is verified through the console's API; only verified ids are reported.
- you may import only: {modules}. No files outside the working directory, no processes, no network
  except the console API through `client`.
- limits: {timeout} s wall clock, {memory} MB of memory. Wait for each resource to become ready
  before using it in the next call.
Answer with the complete script in one ```python block and nothing else."""


@dataclass
class Attempt:
    """One script that was tried, and how it ended (``error`` None = it worked)."""

    script: str
    error: str | None
    stdout: str = ""
    stderr: str = ""


class ScriptWriter(Protocol):
    """Writes a provisioning script for ``description``; ``previous`` are the failed attempts so far."""

    def write(self, description: str, sdk_reference: str, previous: list[Attempt]) -> str: ...


def extract_code(text: str) -> str:
    """The script inside a model's answer: the last ```python block, else any fenced block, else the text."""
    blocks = re.findall(r"```(?:python|py)?[ \t]*\n(.*?)```", text, re.DOTALL)
    return (blocks[-1] if blocks else text).strip() + "\n"


def repair_message(attempt: Attempt, number: int) -> str:
    """How a failed attempt is shown to the writer: the script, the error and the end of its output."""
    tail = (attempt.stderr or attempt.stdout).strip()[-1500:]
    return (f"Attempt {number} failed.\nScript:\n```python\n{attempt.script.rstrip()}\n```\n"
            f"Error: {attempt.error}\n" + (f"Output (end):\n{tail}\n" if tail else "")
            + "Fix the script; answer with the whole corrected script.")


class LLMScriptWriter:
    """An OpenAI-compatible chat model as the script writer (OpenAI, vLLM, SGLang, Ollama, DashScope...)."""

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None, *, temperature: float = 0.0,
                 max_tokens: int = 2048, timeout_s: float = 120.0, allowed_modules: tuple[str, ...] | None = None,
                 sandbox_timeout_s: float = 60, sandbox_memory_mb: int = 512) -> None:
        import openai

        from consoleagent.policies.llm import resolve_api_key
        from consoleagent.consoles.stratus.sandbox import DEFAULT_MODULES

        self.model = model
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.client = openai.OpenAI(base_url=base_url, api_key=resolve_api_key(api_key, base_url), timeout=timeout_s,
                                    max_retries=2)
        self.system = SANDBOX_CONTRACT.format(modules=", ".join(allowed_modules or DEFAULT_MODULES),
                                              timeout=f"{sandbox_timeout_s:g}", memory=sandbox_memory_mb)

    def messages(self, description: str, sdk_reference: str, previous: list[Attempt]) -> list[dict[str, str]]:
        user = f"Request: {description}\n\nSDK and resource reference:\n{sdk_reference}"
        messages = [{"role": "system", "content": self.system}, {"role": "user", "content": user}]
        for number, attempt in enumerate(previous, 1):
            messages.append({"role": "assistant", "content": f"```python\n{attempt.script.rstrip()}\n```"})
            messages.append({"role": "user", "content": repair_message(attempt, number)})
        return messages

    def write(self, description: str, sdk_reference: str, previous: list[Attempt]) -> str:
        response = self.client.chat.completions.create(model=self.model, messages=self.messages(
            description, sdk_reference, previous), temperature=self.temperature, max_tokens=self.max_tokens)
        return extract_code(response.choices[0].message.content or "")
