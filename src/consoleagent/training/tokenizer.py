"""A byte-level BPE tokenizer trained on the project's own corpus, wrapped for transformers.

The tiny model needs a tokenizer that fits its texts (console outlines, procedures, actions) in a
small vocabulary, and one that any Hugging Face tool loads with ``AutoTokenizer``. It carries a
ChatML-style chat template (``<|im_start|>role ... <|im_end|>``); the end-of-turn token is the
end-of-sequence token, so generation stops at the end of the assistant's answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

END_OF_TEXT = "<|endoftext|>"
IM_START = "<|im_start|>"
IM_END = "<|im_end|>"
PAD = "<|pad|>"
SPECIAL_TOKENS = [END_OF_TEXT, IM_START, IM_END, PAD]

# ChatML; add_generation_prompt opens the assistant's turn. The trailing newline after <|im_end|>
# keeps "prompt" a prefix of "prompt + completion", which TRL's completion-only loss relies on.
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


def corpus_texts(extra: Iterable[str] | None = None) -> Iterator[str]:
    """The texts the tokenizer learns from: suite documents, the system prompt, task goals and
    oracle answers' shape, then ``extra`` (e.g. observation texts from trajectories)."""
    from consoleagent.actions.schema import describe_actions
    from consoleagent.suite import DOCUMENTS_ROOT, TASKS_ROOT
    from consoleagent.policies.prompts import system_text

    yield system_text()
    yield describe_actions()
    for path in sorted(DOCUMENTS_ROOT.rglob("*.md")):
        yield path.read_text(encoding="utf-8")
    for path in sorted(TASKS_ROOT.rglob("*.yaml")):  # goals, names and ids, as the task files write them
        yield path.read_text(encoding="utf-8")
    yield "Thought: The page shows what I need.\nStep: 1\nAction: click(1)\n"
    if extra is not None:
        yield from extra


def train_tokenizer(texts: Iterable[str], vocab_size: int = 4096) -> Any:
    """A ``PreTrainedTokenizerFast`` with a byte-level BPE vocabulary learnt from ``texts``."""
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast
    from transformers.models.qwen2.tokenization_qwen2 import PRETOKENIZE_REGEX

    # Qwen2's own pipeline (NFC, its split regex, byte level): AutoTokenizer loads a "qwen2" model's
    # tokenizer as Qwen2Tokenizer, which installs exactly this, so training and loading agree.
    tokenizer = Tokenizer(models.BPE())
    tokenizer.normalizer = normalizers.NFC()
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(PRETOKENIZE_REGEX), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=2, special_tokens=SPECIAL_TOKENS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tokenizer.train_from_iterator(list(texts), trainer=trainer)
    wrapped = PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token=IM_END, pad_token=PAD,
                                      unk_token=None, bos_token=None, additional_special_tokens=[END_OF_TEXT, IM_START],
                                      padding_side="left", model_max_length=8192)
    wrapped.chat_template = CHAT_TEMPLATE
    return wrapped


def save_tokenizer(tokenizer: Any, out_dir: str | Path) -> Path:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer.save_pretrained(str(out))
    return out
