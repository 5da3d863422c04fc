"""Documentation verification against the suite's ground truth: `consoleagent verify --evaluate` on the
shipped corpus, for each policy available offline, on the later release (where the changelog's drift is)
and on the base release (where every document is correct, so every finding is a false alarm).

For each (policy, release) it prints detection precision / recall / F1 of discrepancies, verdict
accuracy and seconds per procedure, and keeps evaluation.json/.md and summary.md under
``--keep DIR/<date>-verify-<policy>-<release>/`` (the full report directories, screenshots included,
stay under ``--out``).

Run: python bench/bench_verify.py [--policies oracle,docfollower] [--releases 2026.09,2026.03] [--runs 1]
                                  [--workers 2] [--out DIR] [--keep bench/results]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from datetime import date
from pathlib import Path

from common import ROOT, machine

from consoleagent.suite import DOCUMENTS_ROOT
from consoleagent.verify.model import VERDICTS
from consoleagent.verify.runner import VerifyConfig, run_verify, write_evaluation


def pct(value: float | None) -> str:
    return "   n/a" if value is None else f"{100 * value:5.1f}%"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--policies", default="oracle,docfollower")
    parser.add_argument("--releases", default="2026.09,2026.03")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None, help="report directories go here (resumable)")
    parser.add_argument("--keep", type=Path, default=None, help="copy the evaluations here (e.g. bench/results)")
    args = parser.parse_args()
    out = (args.out or Path(tempfile.mkdtemp(prefix="bench-verify-"))).resolve()
    keep = args.keep.resolve() if args.keep else None
    # Run from the repository root with a relative documents path: the reports name documents as given,
    # so the kept summaries say src/consoleagent/consoles/stratus/suite/documents/..., not this machine's checkout.
    os.chdir(ROOT)
    documents = DOCUMENTS_ROOT.relative_to(ROOT) if DOCUMENTS_ROOT.is_relative_to(ROOT) else DOCUMENTS_ROOT
    print(f"machine: {machine()}")
    print(f"documents: {documents}, runs {args.runs}, workers {args.workers}, reports in {out}")
    print(f"{'policy':12s} {'release':8s} {'procs':>5s} {'scored':>6s} {'precision':>9s} {'recall':>7s} {'F1':>7s} "
          f"{'verdict acc':>11s} {'false alarms':>12s} {'PASS/DRIFT/FAIL/INCONCL/ERROR':>30s} {'s/proc':>7s} {'wall s':>7s}")
    for policy in args.policies.split(","):
        for release in args.releases.split(","):
            directory = out / f"{policy}-{release}"
            started = time.monotonic()
            report = run_verify(VerifyConfig(documents=[documents], out_dir=directory, release=release, policy=policy,
                                             runs=args.runs, workers=args.workers, command="bench/bench_verify.py"))
            evaluation, _markdown = write_evaluation(directory)
            d, v = evaluation["discrepancies"], report.summary.verdicts
            print(f"{policy:12s} {release:8s} {evaluation['procedures']['total']:>5d} {evaluation['procedures']['scored']:>6d} "
                  f"{pct(d['precision']):>9s} {pct(d['recall']):>7s} {pct(d['f1']):>7s} "
                  f"{pct(evaluation['verdicts'].get('accuracy')):>11s} {evaluation['verdicts'].get('false_alarms', 0):>12d} "
                  f"{'/'.join(str(v.get(k, 0)) for k in VERDICTS):>30s} "
                  f"{evaluation['seconds_per_procedure'] or 0:7.2f} {time.monotonic() - started:7.0f}", flush=True)
            if keep:
                kept = keep / f"{date.today().isoformat()}-verify-{policy}-{release}"
                kept.mkdir(parents=True, exist_ok=True)
                for name in ("evaluation.json", "evaluation.md", "summary.md"):
                    shutil.copy(directory / name, kept / name)


if __name__ == "__main__":
    main()
