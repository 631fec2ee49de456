"""gqlbench.generators: prompting styles, the context budget and model backends.

Prompt styles (``cot``, ``react``, registered in :mod:`~gqlbench.generators.styles`) only talk to the :class:`Backend`
protocol, so one prompting code path serves vLLM, OpenAI-compatible servers
and transformers. This module imports only the light prompting layer; model
backends (``hf_backend``, ``vllm_backend``, ``openai_backend``) are imported
on demand through ``gqlbench.generators.backends.factory``.
"""

from gqlbench.generators.backends.backend import Backend, GenerationConfig, GenerationRequest
from gqlbench.generators.backends.factory import BACKEND_REGISTRY, BACKENDS, build_backend, make_backend
from gqlbench.generators.budget import Detail, PromptTooLong, fit_prompt
from gqlbench.generators.cot import cot_answer, cot_messages, cot_stop
from gqlbench.generators.prompts import render_task
from gqlbench.generators.react import Observer, ReactPrompter, SchemaObserver, react_program, react_stop, run_react
from gqlbench.generators.shots import DEFAULT_SHOTS, SHOT_RULES, select_shots, shot_pool
from gqlbench.generators.styles import STYLES, Answer, PromptStyle, StyleOptions, StyleRun, get_style

__all__ = [
    "Backend",
    "GenerationConfig",
    "GenerationRequest",
    "Detail",
    "PromptTooLong",
    "fit_prompt",
    "cot_answer",
    "cot_messages",
    "cot_stop",
    "BACKENDS",
    "BACKEND_REGISTRY",
    "build_backend",
    "make_backend",
    "render_task",
    "Observer",
    "ReactPrompter",
    "SchemaObserver",
    "react_program",
    "react_stop",
    "run_react",
    "DEFAULT_SHOTS",
    "SHOT_RULES",
    "select_shots",
    "shot_pool",
    "STYLES",
    "Answer",
    "PromptStyle",
    "StyleOptions",
    "StyleRun",
    "get_style",
]
