"""The dtype chosen from the CPU's flags, on faked CPUs of both kinds."""

from __future__ import annotations

from pathlib import Path

import pytest

from gqlbench.generators.backends import cpu
from gqlbench.generators.backends.cpu import choose_dtype, cpu_flags, resolve_dtype

AVX2_ONLY = frozenset({"fpu", "sse4_2", "avx", "avx2", "fma"})  # e.g. the AMD EPYC of issue 12
AVX512_BF16 = AVX2_ONLY | {"avx512f", "avx512bw", "avx512_bf16"}
AMX = AVX2_ONLY | {"avx512f", "amx_tile", "amx_bf16"}


def test_flags_are_read_from_the_flags_line(tmp_path: Path) -> None:
    info = tmp_path / "cpuinfo"
    info.write_text(
        "processor\t: 0\nmodel name\t: Some CPU\nflags\t\t: fpu avx avx2 fma\nbugs\t\t: spectre\n"
        "processor\t: 1\nflags\t\t: fpu avx avx2 fma\n"
    )
    assert cpu_flags(info) == frozenset({"fpu", "avx", "avx2", "fma"})
    info.write_text("processor\t: 0\nFeatures\t: fp asimd\n")
    assert cpu_flags(info) is None
    assert cpu_flags(tmp_path / "missing") is None


def test_bf16_only_with_native_instructions() -> None:
    for flags, native in ((AVX512_BF16, "avx512_bf16"), (AMX, "amx_bf16")):
        choice = choose_dtype(flags)
        assert choice.dtype == "bfloat16" and native in choice.reason
    slow = choose_dtype(AVX2_ONLY)
    assert slow.dtype == "float32" and "avx2" in slow.reason and "avx512_bf16" in slow.reason
    assert choose_dtype(AVX2_ONLY | {"avx512f"}).dtype == "float32"  # AVX-512 without bf16 is still emulated
    assert choose_dtype(None).dtype == "float32"


@pytest.mark.parametrize("flags, expected", [(AVX2_ONLY, "float32"), (AVX512_BF16, "bfloat16")])
def test_backends_ask_the_one_flag_reader(monkeypatch: pytest.MonkeyPatch, flags: frozenset[str], expected: str) -> None:
    monkeypatch.setattr(cpu, "cpu_flags", lambda: flags)
    assert resolve_dtype({}, on_cpu=True).dtype == expected
    assert resolve_dtype({"dtype": None}, on_cpu=True).dtype == expected


def test_an_explicit_dtype_wins_and_gpus_keep_the_checkpoint_dtype(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu, "cpu_flags", lambda: AVX2_ONLY)
    given = resolve_dtype({"dtype": "bfloat16"}, on_cpu=True)
    assert given.dtype == "bfloat16" and "--model-args" in given.reason
    assert resolve_dtype({}, on_cpu=False).dtype == "auto"
