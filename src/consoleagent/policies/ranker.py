"""The ranker: a policy that scores candidate actions instead of generating them.

Every step, ``candidates.build_candidates`` lists what can be done on the page (click each marked
element, type or select each plausible value, check, scroll, back, wait, finish; the documentation
follower run alongside adds its proposal where none of these is it, a report of a discrepancy included) and
``ranker_features.features`` describes each candidate with similarities from the frozen
all-MiniLM-L6-v2 encoder (bi-encoder: candidates, goal, document lines and past actions are embedded
separately, and repeated strings come from the encoder's cache) plus exact signals. A small head (a
linear term plus a two-layer MLP) turns each row into a score; the softmax over the page's
candidates is the policy. It is greedy at temperature 0 and samples at ``temperature`` > 0 (seeded
with ``seed + n`` at its n-th choice, like the hf policy), and every choice is recorded in
``policy.turns`` as ``RankerTurn(features, chosen index)``: GRPO re-scores exactly those rows, so
the log-probability of a chosen action is ``log_softmax(head(features) / T)[chosen]``.

Without ``model`` the head shipped in ``policies/ranker_head/`` is loaded (its ``ranker.json`` says
how it was trained); ``model=base`` is the untrained head: the sum of the candidate's similarity to
the goal and to its best document line (the "base encoder" row of the learning table); with
``prior=P`` also P for the follower's proposal (an untrained residual head, see ``build_head``). ``model=PATH``
loads a head trained by ``consoleagent train sft|grpo --policy ranker`` (``ranker.json`` +
``head.safetensors``, about 25 KB).
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from consoleagent.actions.parser import parse_action
from consoleagent.observation.types import Observation
from consoleagent.policies.base import Decision
from consoleagent.policies.candidates import Candidate, build_candidates, element_key, offered_options, with_proposal
from consoleagent.policies.futile import FutileActions
from consoleagent.policies.prefilter import DEFAULT_KEEP, prefilter
from consoleagent.policies.follower_shadow import FollowerShadow
from consoleagent.policies.ranker_ensemble import MEMBERS_KEY, build_ensemble
from consoleagent.policies.ranker_features import COS_DOC, COS_GOAL, FOLLOWER_PICK, N_FEATURES, EpisodeContext, features

HEAD_FILE = "head.safetensors"
CONFIG_FILE = "ranker.json"
FORMAT = "consoleagent-ranker/1"
PACKAGED_HEAD = Path(__file__).with_name("ranker_head")  # the head shipped with the package (see its ranker.json)


def head_source(model: str | None) -> str | None:
    """Which head a policy loads: ``model`` when it names one; ``"base"``: the untrained head (None); none
    given: the head shipped with the package, or the untrained one where none is shipped."""
    if model == "base":
        return None
    if model:
        return model
    return str(PACKAGED_HEAD) if (PACKAGED_HEAD / CONFIG_FILE).is_file() else None


def _torch() -> Any:
    import torch

    return torch


def build_head(hidden: int = 64, n_features: int = N_FEATURES, prior: float = 0.0, read_unmarked: bool = False) -> Any:
    """The scoring head: ``linear(x) + mlp(x)``, plus ``prior`` times the follower-pick feature. The linear
    part starts as cos_goal + cos_doc and the MLP's output layer at zero, so an untrained head already
    ranks by the encoder's similarities.

    ``prior`` > 0 makes the head a residual policy over the documentation follower: a fixed bonus for the
    follower's proposal, which the learned part must outweigh to act otherwise. Untrained, such a head
    acts as the follower does; training (SFT on where a teacher differs, GRPO on what earns reward) learns
    only where to leave it. The bonus is part of ``forward``, so the log-probabilities GRPO's ratio needs
    include it, and it is saved in ``ranker.json``.

    ``read_unmarked``: the head reads a document that marks no label with the labels its wording shows
    (``candidates.document_labels``), in its features and candidates; saved in ``ranker.json``, and a head
    saved before session 49 has no such key and loads as False. Off unless SFT asks for it (``read_unmarked`` of
    its config): measured on plain documents, it raised SFT's top-1 on held-out documents' steps but not
    episodes' success (BENCHMARKS.md, session 49)."""
    torch = _torch()
    nn = torch.nn

    class RankerHead(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = nn.Linear(n_features, 1)
            self.mlp = nn.Sequential(nn.Linear(n_features, hidden), nn.GELU(), nn.Linear(hidden, 1))
            with torch.no_grad():
                self.linear.weight.zero_()
                self.linear.bias.zero_()
                self.linear.weight[0, COS_GOAL] = 5.0
                self.linear.weight[0, COS_DOC] = 5.0
                self.mlp[2].weight.zero_()
                self.mlp[2].bias.zero_()
            self.prior = float(prior)
            self.config = {"hidden": hidden, "n_features": n_features, "prior": self.prior,
                           "read_unmarked": bool(read_unmarked)}

        def forward(self, rows: Any) -> Any:
            scores = (self.linear(rows) + self.mlp(rows)).squeeze(-1)
            return scores + self.prior * rows[..., FOLLOWER_PICK] if self.prior else scores

    return RankerHead()


def save_head(head: Any, path: str | Path, extra: dict[str, Any] | None = None) -> Path:
    """``ranker.json`` (format, sizes, encoder, anything in ``extra``) and ``head.safetensors``."""
    from safetensors.torch import save_file

    from consoleagent.encoder import MODEL_NAME

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    save_file({k: v.detach().cpu().contiguous() for k, v in head.state_dict().items()}, str(path / HEAD_FILE))
    config = {"format": FORMAT, "encoder": MODEL_NAME, **head.config, **(extra or {})}
    (path / CONFIG_FILE).write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")
    return path


def load_head(path: str | Path) -> Any:
    """A head saved by ``save_head``; a clear error names the folder and what is wrong with it."""
    from safetensors.torch import load_file

    path = Path(path).expanduser()
    config_path = path / CONFIG_FILE
    if not config_path.is_file() or not (path / HEAD_FILE).is_file():
        raise FileNotFoundError(f"ranker model {path}: needs {CONFIG_FILE} and {HEAD_FILE} (written by train sft --policy ranker)")
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{config_path}: not JSON ({exc})") from None
    if config.get("format") != FORMAT:
        raise ValueError(f"{config_path}: format {config.get('format')!r}, expected {FORMAT!r}")
    if config.get("n_features") != N_FEATURES:
        raise ValueError(f"{config_path}: a head for {config.get('n_features')} features; this version computes {N_FEATURES}")

    def member() -> Any:
        return build_head(hidden=int(config["hidden"]), prior=float(config.get("prior") or 0.0),
                          read_unmarked=bool(config.get("read_unmarked", False)))

    count = int(config.get(MEMBERS_KEY) or 0)  # an ensemble of heads (policies/ranker_ensemble.py)
    if MEMBERS_KEY in config and count < 2:
        raise ValueError(f"{config_path}: {MEMBERS_KEY} {config[MEMBERS_KEY]!r}; an ensemble has at least 2")
    head = build_ensemble([member() for _ in range(count)]) if count else member()
    try:
        head.load_state_dict(load_file(str(path / HEAD_FILE)))
    except RuntimeError as exc:  # missing or unexpected tensors, or other shapes than ranker.json says
        raise ValueError(f"{path / HEAD_FILE}: does not fit {config_path.name} ({str(exc).splitlines()[0]})") from None
    head.eval()
    head.record = config  # what its ranker.json says of its training, for an ensemble built from it to name
    return head


def save_ensemble(heads: list[str | Path], out: str | Path) -> Path:
    """Load the heads at ``heads``, write their ensemble (``policies.ranker_ensemble``) to ``out``; its
    ``ranker.json`` names each member's source and what its own ``ranker.json`` said of its training. A folder that
    already holds a head is refused, so a trained head is never overwritten by its ensemble."""
    if (Path(out).expanduser() / CONFIG_FILE).exists():
        raise FileExistsError(f"{out}: already holds a head; choose another --out")
    members = [load_head(path) for path in heads]
    about = [{"path": str(path), **{k: member.record[k] for k in ("trained", "epoch", "step", "collection") if k in member.record}}
             for path, member in zip(heads, members, strict=True)]
    return save_head(build_ensemble(members), out, {"trained": "ensemble", "sources": about})


@dataclass
class RankerTurn:
    """One choice: the candidates' feature rows and the chosen index (GRPO re-scores these)."""

    features: Any
    chosen: int
    logp: float
    meta: dict[str, Any] = field(default_factory=dict)


class RankerPolicy:
    """Choose among candidate actions with the encoder and a head; see the module docstring."""

    def __init__(self, model: str | None = None, temperature: float = 0.0, seed: int | None = None,
                 history_limit: int = 12, threads: int | None = None, max_steps: int | None = None,
                 keep: int = DEFAULT_KEEP, prior: float | None = None, skip_futile: bool = True) -> None:
        source = head_source(model)
        if prior is not None and source:
            raise ValueError("ranker: prior= goes with model=base (a trained head keeps the prior it was trained with)")
        head = load_head(source) if source else build_head(prior=float(prior or 0.0))
        name = ("base" + (f"+prior{prior:g}" if prior else "") if source is None
                else "packaged" if Path(source) == PACKAGED_HEAD else Path(source).name)
        self._setup(head, name=f"ranker:{name}", temperature=temperature, seed=seed,
                    history_limit=history_limit, threads=threads, keep=keep, skip_futile=skip_futile)
        self.max_steps = max_steps

    @classmethod
    def from_head(cls, head: Any, *, temperature: float = 0.0, seed: int | None = None, name: str = "ranker:in-memory",
                  history_limit: int = 12, keep: int = DEFAULT_KEEP, skip_futile: bool = True) -> "RankerPolicy":
        """A policy over a head already in memory (GRPO's current policy)."""
        policy = cls.__new__(cls)
        policy._setup(head, name=name, temperature=temperature, seed=seed, history_limit=history_limit, threads=None,
                      keep=keep, skip_futile=skip_futile)
        policy.max_steps = None
        return policy

    def _setup(self, head: Any, *, name: str, temperature: float, seed: int | None, history_limit: int,
               threads: int | None, keep: int, skip_futile: bool) -> None:
        from consoleagent.encoder import neural_encoder

        if temperature < 0:
            raise ValueError(f"ranker: temperature must be >= 0, got {temperature}")
        if threads:
            _torch().set_num_threads(threads)
        self.encoder = neural_encoder()
        self.head, self.name, self.temperature, self.seed = head, name, temperature, seed
        self.history_limit = history_limit
        self.keep = int(keep)
        self.read_unmarked = bool(head.config.get("read_unmarked", False))  # as the head was trained (build_head)
        self.futile = FutileActions() if skip_futile else None  # actions already tried on this very page (futile.py)
        self.listed = 0  # candidates listed at the last step, before the prefilter
        self._choices = 0
        self.turns: list[RankerTurn] = []
        self.shadow = FollowerShadow()
        self.reset("", [])

    def reset(self, goal: str, document: list[str] | None = None) -> None:
        self.context = EpisodeContext.build(goal, list(document or []), self.read_unmarked)
        self.shadow.reset(goal, document)
        self.proposal: str | None = None  # the follower's action at this step (a feature)
        self.history: list[str] = []  # texts of the candidates chosen so far
        self.options: dict[tuple[str, str, str], list[str]] = {}
        self.turns = []
        if self.futile is not None:
            self.futile.reset()

    # -- scoring ------------------------------------------------------------------------------

    def candidates(self, observation: Observation) -> list[Candidate]:
        """The candidates this step scores: all of them, cut to the ``keep`` best element actions
        by the lexical prefilter (page actions and ``task_complete`` always stay)."""
        offered = offered_options(observation.last_error)
        if offered and observation.mark(offered[0]) is not None:
            self.options[element_key(observation.mark(offered[0]))] = offered[1]
        everything = build_candidates(observation, options=self.options, read_unmarked=self.read_unmarked)
        if not self.context.goal and observation.goal:  # a caller that did not reset with the goal
            self.context = EpisodeContext.build(observation.goal, observation.document, self.read_unmarked)
            self.shadow.reset(observation.goal, observation.document)
        self.proposal = self.shadow.propose(observation)
        if self.futile is not None:
            everything = self.futile.keep(everything, self.proposal)
            if self.proposal and not self.futile.allows(self.proposal, proposed=True):
                self.proposal = None  # the follower's wait on a page two waits left unchanged
        everything, proposed = with_proposal(everything, observation, self.proposal)
        self.listed = len(everything)
        kept = prefilter(self.context, observation, everything, self.keep, self.history[-self.history_limit:])
        if proposed is not None and proposed not in kept:
            kept = [*kept, proposed]  # the follower's choice is always scored
        return [everything[i] for i in kept]

    def score(self, observation: Observation, candidates: list[Candidate]) -> tuple[Any, Any]:
        """``(features, logits)`` for this step's candidates (no gradient)."""
        torch = _torch()
        if not self.context.goal and observation.goal:  # a caller that did not reset with the goal
            self.context = EpisodeContext.build(observation.goal, observation.document, self.read_unmarked)
        rows = features(self.encoder, self.context, observation, candidates, self.history[-self.history_limit:],
                        len(self.history), proposal=self.proposal)
        with torch.no_grad():
            logits = self.head(rows)
        return rows, logits

    def choose(self, logits: Any) -> tuple[int, float]:
        """Greedy at temperature 0, else a seeded sample from softmax(logits / T); with its log-prob."""
        torch = _torch()
        if self.temperature <= 0:
            index = int(torch.argmax(logits))
            return index, float(torch.log_softmax(logits, dim=0)[index])
        logps = torch.log_softmax(logits / self.temperature, dim=0)
        rng = random.Random((self.seed if self.seed is not None else random.randrange(2**31)) * 1_000_003 + self._choices)
        index = rng.choices(range(len(logps)), weights=logps.exp().tolist())[0]
        return index, float(logps[index])

    def act(self, observation: Observation) -> Decision:
        if self.max_steps is not None and len(self.history) >= self.max_steps:  # a budget for benchmarks on a slow CPU
            return Decision(action=f'task_unachievable("ranker: no success within {self.max_steps} steps")',
                            thought="step budget spent", meta={"budget": self.max_steps})
        started = time.monotonic()
        if self.futile is not None:
            self.futile.observe(observation)
        candidates = self.candidates(observation)
        rows, logits = self.score(observation, candidates)
        index, logp = self.choose(logits)
        self._choices += 1
        chosen = candidates[index]
        self.turns.append(RankerTurn(rows, index, logp, {"candidates": len(candidates), "listed": self.listed}))
        self.history.append(chosen.text)
        if self.futile is not None:
            self.futile.chose(chosen.action)
        parse_action(chosen.action)  # every candidate is valid DSL; fail here, not in the environment
        return Decision(action=chosen.action, thought=f"{chosen.text} (p={pow(2.718281828, logp):.2f})",
                        raw=chosen.text, latency_s=time.monotonic() - started,
                        meta={"candidates": len(candidates), "listed": self.listed, "logp": round(logp, 4)})
