"""The mean gain of a recipe over its baseline when each seed has its own baseline, paired by task and by seed.

Usage:
  python bench/paired_seeds.py BASELINE:CANDIDATE [...] [--resamples N] [--seed S]

Each pair is one seed's baseline and candidate (`consoleagent bench` results directories or ``results.json`` files):
an SFT head and the GRPO head trained from it, or one SFT run's head kept by two selection rules. The figure is
`consoleagent compare --pairs A0 B0 A1 B1 ...` (``bench.compare.compare_pairs``) in one line, as earlier sessions'
BENCHMARKS.md sections quote it: the mean over seeds and tasks of candidate − baseline, with an interval that resamples
the tasks and the seeds.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from consoleagent.bench.compare import compare_pairs  # noqa: E402
from consoleagent.bench.results import load_results  # noqa: E402
from consoleagent.bench.stats import Interval  # noqa: E402


def _pair(text: str) -> tuple[Path, Path]:
    baseline, sep, candidate = text.partition(":")
    if not (sep and baseline and candidate):
        raise argparse.ArgumentTypeError(f"{text!r}: expected BASELINE_RESULTS:CANDIDATE_RESULTS")
    return Path(baseline), Path(candidate)


def paired_gain(pairs: list[tuple[Path, Path]], *, resamples: int = 10_000, seed: int = 0) -> Interval | None:
    """The mean of candidate − baseline over the tasks every result scored, bootstrapped over tasks and seeds."""
    loaded = [(load_results(baseline), load_results(candidate)) for baseline, candidate in pairs]
    difference = compare_pairs(loaded, resamples=resamples, seed=seed)["groups"][0]["difference"]
    if difference is None:
        return None
    return Interval(difference["estimate"], difference["low"], difference["high"], difference["n"], difference["level"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pairs", nargs="+", type=_pair, help="BASELINE:CANDIDATE results, one pair per seed")
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    interval = paired_gain(args.pairs, resamples=args.resamples, seed=args.seed)
    if interval is None:
        raise SystemExit("no task is scored in every result")
    print(f"mean gain {100 * interval.estimate:+.1f} pt, 95% CI [{100 * interval.low:+.1f}, {100 * interval.high:+.1f}] "
          f"over {interval.n} tasks and {len(args.pairs)} seeds")


if __name__ == "__main__":
    main()
