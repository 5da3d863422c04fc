"""A local Hugging Face causal LM as a policy: the trained model in rollouts, benchmarks and GRPO.

Each turn is one self-contained prompt, built by the same function as a training sample's prompt
(``consoleagent.policies.prompts.messages_for``): the system message and the rendered observation,
through the tokenizer's chat template. The system message is the one the model was trained with,
as SFT recorded it beside the weights (``consoleagent-prompt.json``), else the full ReAct prompt.
Generation is greedy at temperature 0 and sampled otherwise (seeded when ``seed`` is given), one
observation or a left-padded batch at a time.
The answer is read by ``parse_react`` exactly as for ``LLMPolicy``; an unreadable answer is the
agent's error (``meta["parse_error"]``), never a crash. A prompt over ``max_prompt_tokens`` keeps
the observation's head (goal, document, history) and tail (the page's end) and cuts the middle.

Every turn is recorded in ``policy.turns`` as the exact token ids of prompt and completion (the
completion ends with the end-of-turn token when the model stopped): GRPO computes its ratios on
those ids, so what it trains on is exactly what was generated. torch and transformers are imported
only when a policy is built.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from consoleagent.actions.react import parse_react
from consoleagent.observation.types import Observation
from consoleagent.policies.base import Decision
from consoleagent.policies.prompts import messages_for, model_system_prompt, system_text

CUT_MARKER = "\n[... part of the observation was cut to fit the prompt ...]\n"
MIN_OBSERVATION_TOKENS = 32
_LOADED: dict[tuple[str, str, float], tuple[Any, Any]] = {}


@dataclass
class Turn:
    """One generation: the prompt's token ids and the completion's (eos included when it stopped)."""

    prompt_ids: list[int]
    completion_ids: list[int]
    meta: dict[str, Any] = field(default_factory=dict)


def load_pretrained(path: str, device: str = "cpu") -> tuple[Any, Any]:
    """Model and tokenizer from a directory (or Hub id), cached per process: a benchmark builds one
    policy per episode, and loading once keeps that cheap."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    local = Path(path).expanduser()
    stamp = max((p.stat().st_mtime for p in local.glob("*") if p.is_file()), default=0.0) if local.is_dir() else 0.0
    key = (str(local.resolve()) if local.exists() else path, device, stamp)
    if key not in _LOADED:
        if not local.exists() and (path.startswith((".", "/", "~")) or path.count("/") > 1):  # not a Hub id either
            raise FileNotFoundError(f"hf policy: no model at {path!r} (a directory written by save_pretrained, or a Hub id)")
        source = str(local) if local.exists() else path
        tokenizer = AutoTokenizer.from_pretrained(source)
        model = AutoModelForCausalLM.from_pretrained(source).to(device)
        model.eval()
        _LOADED[key] = (model, tokenizer)
    return _LOADED[key]


class HFPolicy:
    """Generate each action with a local causal LM; see the module docstring."""

    def __init__(self, model: str, temperature: float = 0.0, top_p: float = 1.0, max_new_tokens: int = 96,
                 max_prompt_tokens: int = 3072, history_limit: int = 12, seed: int | None = None,
                 device: str = "cpu", system: str | None = None) -> None:
        loaded, tokenizer = load_pretrained(model, device)
        self._setup(loaded, tokenizer, name=f"hf:{Path(model).name or model}", temperature=temperature, top_p=top_p,
                    max_new_tokens=max_new_tokens, max_prompt_tokens=max_prompt_tokens, history_limit=history_limit,
                    seed=seed, device=device, system=system or model_system_prompt(Path(model).expanduser()))

    @classmethod
    def from_loaded(cls, model: Any, tokenizer: Any, temperature: float = 0.0, top_p: float = 1.0,
                    max_new_tokens: int = 96, max_prompt_tokens: int = 3072, history_limit: int = 12,
                    seed: int | None = None, device: str | None = None, name: str | None = None,
                    system: str | None = None) -> "HFPolicy":
        """A policy over a model already in memory (GRPO's current policy); its train/eval mode is left as is."""
        policy = cls.__new__(cls)
        where = device or str(next(model.parameters()).device)
        label = name or f"hf:{Path(str(getattr(model.config, '_name_or_path', '') or 'in-memory')).name or 'in-memory'}"
        policy._setup(model, tokenizer, name=label, temperature=temperature, top_p=top_p, max_new_tokens=max_new_tokens,
                      max_prompt_tokens=max_prompt_tokens, history_limit=history_limit, seed=seed, device=where,
                      system=system)
        return policy

    def _setup(self, model: Any, tokenizer: Any, *, name: str, temperature: float, top_p: float, max_new_tokens: int,
               max_prompt_tokens: int, history_limit: int, seed: int | None, device: str,
               system: str | None = None) -> None:
        if tokenizer.pad_token_id is None:
            raise ValueError(f"{name}: the tokenizer has no pad token (set tokenizer.pad_token before batching)")
        if not getattr(tokenizer, "chat_template", None):
            raise ValueError(f"{name}: the tokenizer has no chat template (tokenizer_config.json / chat_template.jinja)")
        self.model, self.tokenizer, self.name = model, tokenizer, name
        self.temperature, self.top_p, self.max_new_tokens = temperature, top_p, max_new_tokens
        self.max_prompt_tokens, self.history_limit, self.seed, self.device = max_prompt_tokens, history_limit, seed, device
        self.system = system or system_text()
        self._generations = 0  # seeds sampling: call n uses seed + n, so G rollouts of one policy differ
        self.turns: list[Turn] = []
        self.goal, self.document = "", []

    def reset(self, goal: str, document: list[str] | None = None) -> None:
        self.goal, self.document = goal, list(document or [])
        self.turns = []

    # -- prompts --------------------------------------------------------------------------------

    def render_prompt(self, observation_text: str) -> str:
        return self.tokenizer.apply_chat_template(messages_for(observation_text, self.system), tokenize=False,
                                                  add_generation_prompt=True)

    def _ids(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def prompt_ids(self, observation: Observation | str) -> tuple[list[int], int]:
        """The prompt's token ids for an observation, and how many observation tokens were cut to fit."""
        text = observation if isinstance(observation, str) else observation.render(history_limit=self.history_limit)
        ids = self._ids(self.render_prompt(text))
        if len(ids) <= self.max_prompt_tokens:
            return ids, 0
        observation_ids = self._ids(text)
        overhead = len(ids) - len(observation_ids)
        budget = max(MIN_OBSERVATION_TOKENS, self.max_prompt_tokens - overhead - len(self._ids(CUT_MARKER)))
        for _ in range(4):  # re-tokenising the joined text can merge differently at the seams: shrink until it fits
            head = budget // 2
            tail = budget - head
            cut = (self.tokenizer.decode(observation_ids[:head]) + CUT_MARKER
                   + self.tokenizer.decode(observation_ids[len(observation_ids) - tail:]))
            ids = self._ids(self.render_prompt(cut))
            if len(ids) <= self.max_prompt_tokens or budget <= MIN_OBSERVATION_TOKENS:
                break
            budget = max(MIN_OBSERVATION_TOKENS, budget - (len(ids) - self.max_prompt_tokens))
        return ids, len(observation_ids) - budget

    # -- acting ---------------------------------------------------------------------------------

    def act(self, observation: Observation) -> Decision:
        return self.act_batch([observation])[0]

    def act_batch(self, observations: list[Observation]) -> list[Decision]:
        """One decision per observation, generated together (left-padded); each appends a Turn."""
        if not observations:
            return []
        started = time.monotonic()
        prompts = [self.prompt_ids(o) for o in observations]
        completions = self.generate([ids for ids, _ in prompts])
        latency = time.monotonic() - started
        decisions = []
        for (ids, cut), completion in zip(prompts, completions):
            self.turns.append(Turn(prompt_ids=ids, completion_ids=completion))
            decisions.append(self._decide(ids, completion, cut, latency))
        return decisions

    def generate(self, prompts: list[list[int]]) -> list[list[int]]:
        """Completion ids for each prompt: up to and including eos when the model stopped, else max_new_tokens."""
        import torch

        batch = self.tokenizer.pad({"input_ids": prompts}, padding=True, return_tensors="pt", padding_side="left")
        input_ids = batch["input_ids"].to(self.device)
        attention_mask = batch["attention_mask"].to(self.device)
        options: dict[str, Any] = {"max_new_tokens": self.max_new_tokens, "pad_token_id": self.tokenizer.pad_token_id,
                                   "eos_token_id": self.tokenizer.eos_token_id}
        if self.temperature > 0:
            options.update(do_sample=True, temperature=self.temperature, top_p=self.top_p, top_k=0)
        else:
            options.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        devices = [] if torch.device(self.device).type != "cuda" else [torch.device(self.device).index or 0]
        with torch.random.fork_rng(devices=devices), torch.no_grad():  # seeding here leaves the caller's RNG alone
            if self.seed is not None:
                torch.manual_seed(self.seed + self._generations)
            output = self.model.generate(input_ids=input_ids, attention_mask=attention_mask, **options)
        self._generations += 1
        return [self._completion(row[input_ids.shape[1]:].tolist()) for row in output]

    def _completion(self, ids: list[int]) -> list[int]:
        eos = self.tokenizer.eos_token_id
        return ids[:ids.index(eos) + 1] if eos in ids else [i for i in ids if i != self.tokenizer.pad_token_id]

    def _decide(self, prompt: list[int], completion: list[int], cut: int, latency: float) -> Decision:
        text = self.tokenizer.decode(completion, skip_special_tokens=True)
        stopped = bool(completion) and completion[-1] == self.tokenizer.eos_token_id
        meta: dict[str, Any] = {"finish_reason": "stop" if stopped else "length"}
        if cut:
            meta["prompt_cut_tokens"] = cut
        react = parse_react(text)
        if react.action is None:
            meta["parse_error"] = react.error or "no action found"
        return Decision(action=react.action or "", thought=react.thought, raw=text, document_step=react.document_step,
                        usage={"prompt_tokens": len(prompt), "completion_tokens": len(completion)},
                        latency_s=latency, meta=meta)
