"""The compute dtype on CPU, chosen from what the processor can do.

bf16 halves memory traffic, but only CPUs with native bf16 instructions
(``avx512_bf16``, AMX) compute in it quickly. Elsewhere torch emulates it:
on an AVX2-only CPU a 256x576 by 576x1536 bf16 matmul took 697 ms against
10 ms in float32, and vLLM's fallback path decoded SmolLM2 into unrelated
text. So bf16 is used only where the flags show native support, float32
otherwise, and an explicit ``dtype`` model argument always wins.

:func:`cpu_flags` is the one place that reads the CPU's capabilities, so
tests replace it to cover both kinds of CPU on either machine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["BF16_FLAGS", "DtypeChoice", "cpu_flags", "choose_dtype", "resolve_dtype"]

BF16_FLAGS: tuple[str, ...] = ("avx512_bf16", "amx_bf16")  # x86 flags of native bf16 arithmetic
CPUINFO = Path("/proc/cpuinfo")


@dataclass(frozen=True)
class DtypeChoice:
    """A dtype name as vLLM and transformers spell it (``float32``, ``bfloat16``, ``auto``) and why."""

    dtype: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"dtype": self.dtype, "reason": self.reason}


def cpu_flags(cpuinfo: Path = CPUINFO) -> frozenset[str] | None:
    """The CPU's feature flags from ``/proc/cpuinfo``; None where they cannot be read (not Linux)."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() == "flags":
            return frozenset(value.split())
    return None


def choose_dtype(flags: frozenset[str] | None) -> DtypeChoice:
    """bfloat16 when the CPU has native bf16 instructions, else float32 (the reason names the flags seen)."""
    if flags is None:
        return DtypeChoice("float32", "CPU flags unreadable (no /proc/cpuinfo): float32, safe on every CPU")
    native = [flag for flag in BF16_FLAGS if flag in flags]
    if native:
        return DtypeChoice("bfloat16", f"CPU has native bf16 ({', '.join(native)})")
    widest = next((f for f in ("avx512f", "avx2", "avx", "sse4_2") if f in flags), "no AVX")
    return DtypeChoice("float32", f"CPU has {widest} but no {' or '.join(BF16_FLAGS)}: bf16 would be emulated, far slower than float32")


def resolve_dtype(model_args: Mapping[str, Any], *, on_cpu: bool) -> DtypeChoice:
    """The dtype a local backend loads with: an explicit ``dtype`` model arg, the checkpoint's on GPU, else by CPU."""
    given = model_args.get("dtype")
    if given is not None:
        return DtypeChoice(str(given), f"dtype={given} given in --model-args")
    if not on_cpu:
        return DtypeChoice("auto", "GPU: the checkpoint's dtype")
    return choose_dtype(cpu_flags())
