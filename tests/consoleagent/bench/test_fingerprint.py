"""A results directory resumes only with the weights that played its episodes (bench.fingerprint, check_run)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from consoleagent.bench import fingerprint
from consoleagent.bench.fingerprint import MODEL_SHA256, model_fingerprint
from consoleagent.bench.harness import RUN_FILE, BenchConfig, BenchConfigError, check_run


def head(folder: Path, weights: bytes = b"\x00\x01weights", step: int = 12) -> Path:
    """A model directory as `train sft` writes one (the bytes stand for the weights)."""
    folder.mkdir(parents=True)
    (folder / "head.safetensors").write_bytes(weights)
    (folder / "ranker.json").write_text(json.dumps({"format": "consoleagent-ranker/1", "step": step}))
    return folder


def test_the_fingerprint_is_of_the_files_not_of_where_they_are(tmp_path: Path) -> None:
    first = model_fingerprint(str(head(tmp_path / "a")))
    assert first is not None and len(first) == 64
    assert model_fingerprint(str(head(tmp_path / "elsewhere" / "b"))) == first  # a copy
    (tmp_path / "a" / ".lock").write_text("editor noise")
    assert model_fingerprint(str(tmp_path / "a")) == first  # hidden files are not the model
    assert model_fingerprint(str(head(tmp_path / "c", weights=b"\x00\x02weights"))) != first  # one byte
    assert model_fingerprint(str(head(tmp_path / "d", step=13))) != first  # its config
    (tmp_path / "a" / "extra.bin").write_bytes(b"")
    assert model_fingerprint(str(tmp_path / "a")) != first  # a file more
    assert model_fingerprint(str(tmp_path / "a" / "head.safetensors")) is not None  # a single file
    assert model_fingerprint("gpt-4o") is None and model_fingerprint(None) is None  # an API model, no model


def test_a_large_file_is_known_by_its_size_and_edges(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An LLM's shards are GBs: hashing them whole on every resume would cost minutes."""
    monkeypatch.setattr(fingerprint, "WHOLE_FILE_BYTES", 16)
    monkeypatch.setattr(fingerprint, "EDGE_BYTES", 4)
    shard = tmp_path / "model.safetensors"
    shard.write_bytes(b"HEAD" + b"m" * 32 + b"TAIL")
    first = model_fingerprint(str(shard))
    shard.write_bytes(b"HEAD" + b"M" * 32 + b"TAIL")
    assert model_fingerprint(str(shard)) == first  # the middle is not read
    shard.write_bytes(b"HEAD" + b"m" * 32 + b"TAIx")
    assert model_fingerprint(str(shard)) != first
    shard.write_bytes(b"HEAD" + b"m" * 33 + b"TAIL")
    assert model_fingerprint(str(shard)) != first  # its size


def test_a_results_directory_refuses_to_resume_with_other_weights_at_the_same_path(tmp_path: Path) -> None:
    """`make train-plain` run again retrains its SFT heads into the same directories; `train select` must not
    resume with the episodes the old heads played."""
    model = head(tmp_path / "sft" / "epochs" / "epoch-012")
    config = BenchConfig(tmp_path / "results", policy="ranker", runs=1, plots=False, policy_options={"model": str(model)})
    check_run(tmp_path / "results", config)
    recorded = json.loads((tmp_path / "results" / RUN_FILE).read_text())
    assert recorded[MODEL_SHA256] == model_fingerprint(str(model))
    check_run(tmp_path / "results", config)  # the same weights resume

    shutil.rmtree(model)
    head(model, weights=b"\x00\x01retrained")
    with pytest.raises(BenchConfigError, match=r"played by other weights at .*epoch-012 \(sha256 [0-9a-f]{12}, now "
                                               r"[0-9a-f]{12}\).*cannot be resumed"):
        check_run(tmp_path / "results", config)

    shutil.rmtree(model)
    head(model)  # the first weights again, say a deterministic retraining
    check_run(tmp_path / "results", config)


def test_a_directory_made_before_fingerprints_still_resumes(tmp_path: Path) -> None:
    model = head(tmp_path / "final")
    config = BenchConfig(tmp_path / "old", policy="ranker", runs=1, plots=False, policy_options={"model": str(model)})
    check_run(tmp_path / "old", config)
    recorded = json.loads((tmp_path / "old" / RUN_FILE).read_text())
    del recorded[MODEL_SHA256]
    (tmp_path / "old" / RUN_FILE).write_text(json.dumps(recorded))
    check_run(tmp_path / "old", config)  # nothing to compare with: as before
