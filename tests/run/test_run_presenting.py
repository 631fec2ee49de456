"""Shown names back to real ones: obfuscated gold scores 1.0 and executes; executing observers see real names."""

from __future__ import annotations

from collections.abc import Sequence

from gqlbench.dataset import load_errata, load_split
from gqlbench.generators.obfuscate import unknown_endpoint
from gqlbench.generators.present import Presenter, PromptSetting
from gqlbench.generators.react import SchemaObserver
from gqlbench.metrics import score_sample
from gqlbench.records import Sample
from gqlbench.run.presenting import RealNamesObserver, observer_for, real_program
from gqlbench.scoring.join import add_exec_scores


def _executable(domain: str, n: int) -> list[Sample]:
    errata = load_errata()
    bad = set(errata.invalid_gold) | set(errata.positional_gold_args) | set(errata.other.get("non_executable_gold", {}))
    return [s for s in load_split("test") if s.domain == domain and s.id not in bad][:n]


def test_obfuscated_gold_mapped_back_scores_one_and_executes() -> None:
    samples = _executable("spotify", 3) + _executable("tmdb", 3)
    for setting in (PromptSetting("distractors:4", "all"), PromptSetting("domain", "params", "types-only")):
        presenter = Presenter(setting, seed=2)
        results, codes = [], {}
        for sample in samples:
            shown = presenter(sample).sample
            assert shown.gold_code != sample.gold_code  # the model sees other names
            answer = f"Plan.\n```python\n{shown.gold_code}\n```"
            real, code, prediction, record = real_program(presenter, sample.id, shown.gold_code, answer)
            assert real is sample and code == sample.gold_code and record["offered"] == presenter(sample).offered
            result = score_sample(sample, prediction)
            assert (result.scores.arg_match_full, result.scores.seq_match_full) == (1, 1), sample.id
            results.append(result)
            codes[sample.id] = code
        executed = add_exec_scores(results, {s.id: s for s in samples}, codes, seed=2)
        assert [r.scores.exec_match for r in executed] == [1] * len(samples)


def test_the_default_setting_changes_nothing() -> None:
    presenter = Presenter(PromptSetting(), seed=0)
    sample = load_split("test")[0]
    presenter(sample)
    assert real_program(presenter, sample.id, "x = 1", "text") == (sample, "x = 1", "text", {})
    observer = SchemaObserver()
    assert observer_for(observer, presenter) is observer and observer_for(None, presenter) is None


class _Recorder:
    name = "record"
    explains = "what ran"

    def __init__(self) -> None:
        self.seen: list[tuple[str, list[str], str]] = []

    def observe(self, sample: Sample, actions_so_far: list[str], action: str) -> str:
        self.seen.append((sample.gold_code, actions_so_far, action))
        return f"Error: {action} failed"

    def observe_many(self, requests: Sequence[tuple[Sample, list[str], str]]) -> list[str]:
        return [self.observe(*r) for r in requests]


def test_an_executing_observer_gets_real_names_and_answers_in_shown_ones() -> None:
    sample = _executable("tmdb", 1)[0]
    presenter = Presenter(PromptSetting("distractors:2", "names"), seed=0)
    shown = presenter(sample).sample
    inner = _Recorder()
    wrapped = observer_for(inner, presenter)
    assert isinstance(wrapped, RealNamesObserver)
    first = shown.gold_code.splitlines()[0]
    answer = wrapped.observe(shown, [], first)
    gold, actions, action = inner.seen[0]
    assert gold == sample.gold_code and action == sample.gold_code.splitlines()[0] and actions == []
    assert answer == f"Error: {first} failed" and "api_" in answer  # the real call, told back in the shown names


def test_an_observation_names_functions_and_their_types_as_the_prompt_does() -> None:
    sample = next(s for s in _executable("spotify", 20) if any(n.endswith("_") for n in s.function_names))
    presenter = Presenter(PromptSetting("gold", "names"), seed=0)
    presenter(sample)
    real = next(n for n in sample.function_names if n.endswith("_"))  # GET_tracks__id_: its types are GET_tracks__id_<Type>
    inner = _Recorder()
    inner.observe = lambda *_: f"{real} returned {real}Root with {real}Album; see {real}_Root"  # type: ignore[method-assign]
    shown = presenter(sample).names.shown(real)
    answer = observer_for(inner, presenter).observe(presenter(sample).sample, [], "x")  # type: ignore[union-attr]
    assert answer == f"{shown} returned {shown}_Root with {shown}_Album; see {shown}_Root" and real not in answer


def _not_offered(presenter: Presenter, sample: Sample) -> tuple[str, str]:
    """(real, opaque) of a domain function the sample was not offered (a name a few-shot example may show)."""
    names = presenter(sample).names
    real = next(r for r in sorted(names.others) if r not in sample.function_names and r in names.other_params)
    return real, names.others[real]


def test_a_not_offered_opaque_name_maps_back_and_is_tagged_hallucinated() -> None:
    sample = _executable("tmdb", 1)[0]
    presenter = Presenter(PromptSetting("gold", "all"), seed=1)
    shown = presenter(sample).sample
    real, opaque = _not_offered(presenter, sample)
    real_param = next(iter(presenter(sample).names.other_params[real]))
    code = f"{shown.gold_code}\nx = {opaque}(arg_1=1)\ny = api_999(arg_1=2)\n"
    _, mapped, prediction, record = real_program(presenter, sample.id, code, code)
    made_up = unknown_endpoint("api_999")
    assert f"x = {real}({real_param}=1)" in mapped and f"y = {made_up}(arg_1=2)" in mapped
    assert mapped.startswith(sample.gold_code)  # offered names map as before
    assert record["not_offered_calls"] == {opaque: real, "api_999": made_up}
    assert set(record["obfuscation"]["functions"]) == set(sample.function_names)  # the offered mapping stays readable
    result = score_sample(sample, prediction, offered=record["offered"])
    tagged = [e for e in result.explanation.errors if e["kind"] == "hallucinated_function"]
    assert [e["got"] for e in tagged] == [real, made_up] and "not offered" in tagged[0]["detail"]
    assert result.scores == score_sample(sample, prediction).scores  # scores never read the offer
    untagged = score_sample(sample, prediction).explanation.errors
    assert [e["kind"] for e in untagged if e["got"] == real] == ["wrong_function"]


def test_a_made_up_opaque_name_scores_as_a_made_up_endpoint_does_in_a_plain_run() -> None:
    """Gold plus ``api_999(...)`` under ``all`` scores and is tagged as gold plus ``GET_lyrics(...)`` without obfuscation."""
    for sample in _executable("spotify", 2) + _executable("tmdb", 2):
        plain = score_sample(sample, f"{sample.gold_code}\nGET_lyrics(q=1)\n")
        presenter = Presenter(PromptSetting("gold", "all"), seed=0)
        code = f"{presenter(sample).sample.gold_code}\napi_999(arg_1=1)\n"
        _, _, prediction, record = real_program(presenter, sample.id, code, code)
        hidden = score_sample(sample, prediction, offered=record["offered"])
        assert plain.scores.seq_match_full == hidden.scores.seq_match_full == 0, sample.id
        assert plain.scores == hidden.scores, sample.id
        kinds = [[e["kind"] for e in r.explanation.errors] for r in (plain, hidden)]
        assert kinds[0] == kinds[1] and "hallucinated_function" in kinds[0], sample.id


def test_offered_names_alone_record_nothing_extra() -> None:
    sample = _executable("spotify", 1)[0]
    presenter = Presenter(PromptSetting("gold", "names"), seed=0)
    shown = presenter(sample).sample
    _, mapped, _, record = real_program(presenter, sample.id, shown.gold_code, shown.gold_code)
    assert mapped == sample.gold_code and "not_offered_calls" not in record
