"""How many episodes ``train select``'s pruning would have left unplayed in selections run without it.

Usage: python bench/select_prune_replay.py SELECTION_DIR [SELECTION_DIR ...]

Each SELECTION_DIR is the ``--out`` of a ``consoleagent train select`` whose candidates were all played to the end
(``--no-prune``, or a run from before pruning existed). Each candidate's ledger is replayed in the order its episodes
finished, and the candidate is stopped where ``select_head`` would have stopped it: once ``reachable_pass1`` is no
more than the best pass@1 of the candidates before it. The choice cannot change (a stopped candidate could not have
won), so this reports only the episodes saved, and checks that the replayed choice is the recorded one. Greedy heads
repeat exactly, so a pruned run plays the same episodes up to the order two workers finish them in.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))


def replay(selection_dir: Path) -> tuple[int, int]:
    """(episodes played without pruning, episodes pruning would have played) for one selection."""
    from consoleagent.bench.harness import LEDGER_FILE
    from consoleagent.rollout.ledger import RunLedger
    from consoleagent.training.select_head import SELECTION_FILE, reachable_pass1

    selection = json.loads((selection_dir / SELECTION_FILE).read_text())
    runs = selection["runs"]
    best: float | None = None
    chosen = None
    total = pruned_total = 0
    for candidate in selection["candidates"]:
        records = list(RunLedger(selection_dir / Path(candidate["results"]).name / LEDGER_FILE).results())
        tasks = len(records) // runs
        played = len(records)
        for index in range(len(records) + 1):
            if best is not None and reachable_pass1(records[:index], runs, tasks) <= best + 1e-9:
                played = index
                break
        total += len(records)
        pruned_total += played
        print(f"{candidate['head']}: {candidate['passed']} of {candidate['episodes']} passed; "
              f"{played} of {len(records)} played with pruning")
        if played == len(records) and candidate["pass1"] is not None and (best is None or candidate["pass1"] > best):
            best, chosen = candidate["pass1"], candidate["head"]
    if chosen != selection["chosen"]:
        sys.exit(f"{selection_dir}: the replay chose {chosen}, the selection {selection['chosen']}")
    return total, pruned_total


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    total = pruned = 0
    for directory in sys.argv[1:]:
        played, kept = replay(Path(directory))
        total, pruned = total + played, pruned + kept
    print(f"{total} episodes played; {pruned} with pruning; {total - pruned} ({(total - pruned) / total:.0%}) saved")


if __name__ == "__main__":
    main()
