"""How many of a document's labels the documentation follower recovers when the document marks none.

Usage: python bench/bench_plain_labels.py [--split train] [--out bench/results/DATE-plain-labels]

Each stratus suite document of the selected tasks (split by document, as the benchmark splits) is rewritten in the
``plain`` style (``documents.restyle``: emphasis and code markup removed) and read back with
``documents.labels.mark_unmarked_labels``, as the follower reads every document it is given. The labels it marks are
compared, line by line, with the labels the written document marks:

- **prose**: every line that is not a table row;
- **table**: a table row's cells after its first (the first names its field by position and is not marked).

A label counts as right when the same label is marked on the same line; ``extra`` were marked though the writer did
not, ``missed`` were marked by the writer and not recovered. An explaining parenthesis ("Online (the instance keeps
running)") is compared without it, as the follower reads it. The training split is what the reading was tuned on;
other splits are reported for information, not tuned on.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from consoleagent.cli.tasks import load_selected  # noqa: E402
from consoleagent.documents.labels import bold_labels, mark_unmarked_labels, unexplained  # noqa: E402
from consoleagent.documents.restyle import restyle  # noqa: E402
from consoleagent.suite import DOCUMENTS_ROOT, TASKS_ROOT  # noqa: E402


def _labels(line: str) -> collections.Counter[str]:
    return collections.Counter(unexplained(label) for label in bold_labels(line))


def score(split: str) -> dict[str, dict[str, float]]:
    documents = {t.document: t.to_task(DOCUMENTS_ROOT).document for t in load_selected(f"split={split}", TASKS_ROOT)}
    counts = {"prose": collections.Counter(), "table": collections.Counter()}
    for steps in documents.values():
        for written, read in zip(steps, mark_unmarked_labels(restyle(steps, "plain"))):
            for want_line, got_line in zip(written.split("\n"), read.split("\n")):
                kind = "table" if want_line.lstrip().startswith("|") else "prose"
                if kind == "table":
                    want_line, got_line = "|".join(want_line.split("|")[2:]), "|".join(got_line.split("|")[2:])
                want, got = _labels(want_line), _labels(got_line)
                counts[kind]["right"] += sum((want & got).values())
                counts[kind]["extra"] += sum((got - want).values())
                counts[kind]["missed"] += sum((want - got).values())
    result: dict[str, dict[str, float]] = {"documents": {"count": len(documents)}}
    for kind, c in counts.items():
        result[kind] = {**c, "precision": c["right"] / max(1, c["right"] + c["extra"]),
                        "recall": c["right"] / max(1, c["right"] + c["missed"])}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", default="train", help="the tasks whose documents are scored (default: train)")
    parser.add_argument("--out", type=Path, help="a folder for results.json (default: print only)")
    args = parser.parse_args()
    result = score(args.split)
    print(f"{args.split}: {result['documents']['count']} documents")
    for kind in ("prose", "table"):
        r = result[kind]
        print(f"  {kind}: {r['right']} right, {r['extra']} extra, {r['missed']} missed; "
              f"precision {r['precision']:.1%}, recall {r['recall']:.1%}")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "results.json").write_text(json.dumps({"date": date.today().isoformat(), "split": args.split,
                                                           **result}, indent=2) + "\n")


if __name__ == "__main__":
    main()
