"""What an episode costs: tokens times a price table for API models, CPU seconds for local ones.

The built-in table holds a few API models' list prices in US dollars per million tokens (input,
output) as published by their providers when this table was written, and the price of one CPU
core (vCPU) for an hour; prices change, so pass your own with ``--price-table FILE`` (JSON or YAML,
entries override the built-in ones)::

    {"my-model": {"input_per_mtok": 0.5, "output_per_mtok": 1.5}, "cpu_core_hour": 0.05}

A model without a token price (a local model, the document follower, the oracle) is costed by the
CPU seconds its policy used while deciding (``timings.policy_cpu`` of every trajectory step: the
agent's own process, not the browser's or the console's) at ``cpu_core_hour``. Its wall seconds
(``timings.policy``) are kept beside it. A local model served from a GPU spends GPU time that this
price does not cover: give it a token price of its own instead.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Price:
    input_per_mtok: float
    output_per_mtok: float

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.input_per_mtok + completion_tokens * self.output_per_mtok) / 1_000_000


BUILTIN: dict[str, Price] = {
    "gpt-4o": Price(2.50, 10.00),
    "gpt-4o-mini": Price(0.15, 0.60),
    "gpt-4.1": Price(2.00, 8.00),
    "gpt-4.1-mini": Price(0.40, 1.60),
    "gpt-4.1-nano": Price(0.10, 0.40),
    "o3": Price(2.00, 8.00),
    "o4-mini": Price(1.10, 4.40),
    "claude-sonnet-4": Price(3.00, 15.00),
    "claude-3-5-haiku": Price(0.80, 4.00),
    "gemini-2.5-pro": Price(1.25, 10.00),
    "gemini-2.5-flash": Price(0.30, 2.50),
}

# One vCPU for an hour, US$: an on-demand instance's hourly price over its vCPUs. The example prices in
# AWS's EC2 Auto Scaling guide put c5.2xlarge (8 vCPU, x86) at $0.34 per hour in us-east-1 ($0.0425); a
# June 2026 price list puts m7g.large (2 vCPU, Arm) at $0.0816 ($0.0408). The higher of the two; not
# checked against a live price list (no network here), so pass your own for a real bill.
CPU_CORE_HOUR = 0.0425
CPU_KEY = "cpu_core_hour"


class PriceTableError(ValueError):
    pass


class PriceTable:
    def __init__(self, prices: dict[str, Price] | None = None, cpu_core_hour: float | None = CPU_CORE_HOUR) -> None:
        self.prices = dict(BUILTIN if prices is None else prices)
        self.cpu_core_hour = cpu_core_hour

    def cpu_cost(self, cpu_seconds: float | None) -> float | None:
        """US$ for ``cpu_seconds`` of one core; None when either is unknown."""
        if cpu_seconds is None or self.cpu_core_hour is None:
            return None
        return cpu_seconds * self.cpu_core_hour / 3600

    @classmethod
    def load(cls, path: Path | None = None) -> "PriceTable":
        """The built-in table, overridden by the entries of ``path`` when given."""
        table = cls()
        if path is None:
            return table
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise PriceTableError(f"{path}: cannot read the price table: {exc.strerror}") from None
        try:
            import yaml

            data = json.loads(text) if str(path).endswith(".json") else yaml.safe_load(text)
        except ValueError as exc:
            raise PriceTableError(f"{path}: not valid JSON or YAML: {exc}") from None
        if not isinstance(data, dict):
            raise PriceTableError(f"{path}: a price table maps model names to {{input_per_mtok, output_per_mtok}}")
        for model, entry in data.items():
            if model == CPU_KEY:
                table.cpu_core_hour = _cpu_price(path, entry)
                continue
            try:
                table.prices[str(model)] = Price(float(entry["input_per_mtok"]), float(entry["output_per_mtok"]))
            except (TypeError, KeyError, ValueError):
                raise PriceTableError(f"{path}: {model}: needs numbers input_per_mtok and output_per_mtok "
                                      "(US dollars per million tokens)") from None
        return table

    def price(self, model: str | None) -> Price | None:
        """The price of ``model``: an exact entry, else the longest entry that prefixes it (dated snapshots
        such as ``gpt-4o-2024-08-06``), else None (a local model)."""
        if not model:
            return None
        name = model.rsplit("/", 1)[-1]  # "openai/gpt-4o" as some gateways name it
        if name in self.prices:
            return self.prices[name]
        prefixes = [key for key in self.prices if name.startswith(key + "-")]
        return self.prices[max(prefixes, key=len)] if prefixes else None

    def to_dict(self, model: str | None) -> dict[str, Any] | None:
        """The price a results document records: the model's tokens, else the CPU's (None: neither known)."""
        price = self.price(model)
        if price is not None:
            return {"model": model, "input_per_mtok": price.input_per_mtok, "output_per_mtok": price.output_per_mtok}
        return None if self.cpu_core_hour is None else {CPU_KEY: self.cpu_core_hour}


def _cpu_price(path: Path, entry: Any) -> float:
    try:
        value = float(entry)
    except (TypeError, ValueError):
        value = -1.0
    if value < 0:
        raise PriceTableError(f"{path}: {CPU_KEY}: needs a number, US dollars per core-hour (got {entry!r})")
    return value


def format_usd(value: float | None) -> str:
    """US$ for a table: four decimals, or scientific notation below a tenth of a cent (a CPU-priced
    policy's cost per task is a few millionths of a dollar)."""
    if value is None:
        return "–"
    return f"${value:.4f}" if value >= 0.001 or value == 0 else f"${value:.2e}"
