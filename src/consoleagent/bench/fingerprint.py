"""Which weights a results directory's episodes were played with.

A results directory resumes by skipping the episodes its ledger holds, and it names its model by path. A
path is not weights: retrain a head into the same directory (``make train-plain`` run again, ``train sft``
with another seed into the same ``--out``) and a resumed run would mix the old weights' episodes with the new
ones', and ``train select`` would choose among heads by episodes other heads played. The fingerprint is
recorded in ``run.json`` when the directory is made, compared on every resume, and written into
``results.json`` so a figure names the weights that produced it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

MODEL_SHA256 = "model_sha256"  # the key in run.json and results.json
WHOLE_FILE_BYTES = 64 * 2**20  # files up to this size are hashed whole
EDGE_BYTES = 2**20  # of a larger file (an LLM's shards): its size and its first and last MiB


def model_fingerprint(model: str | None) -> str | None:
    """sha256 over a model file, or over a model directory's files (their relative paths, sizes and contents);
    None for no model or a name that is not a local path (an API model)."""
    if not model:
        return None
    path = Path(model)
    if path.is_file():
        files = [path]
    elif path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
    else:
        return None
    digest = hashlib.sha256()
    for file in files:
        digest.update(f"{file.relative_to(path) if file != path else file.name}\0{file.stat().st_size}\0".encode())
        _update(digest, file)
    return digest.hexdigest()


def _update(digest: "hashlib._Hash", file: Path) -> None:
    size = file.stat().st_size
    with file.open("rb") as handle:
        if size <= WHOLE_FILE_BYTES:
            for block in iter(lambda: handle.read(2**20), b""):
                digest.update(block)
            return
        digest.update(handle.read(EDGE_BYTES))
        handle.seek(size - EDGE_BYTES)
        digest.update(handle.read(EDGE_BYTES))
