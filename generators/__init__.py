"""gqlbench.generators: prompting styles, the context budget and model backends.

Prompt builders (``cot``, ``react``) only talk to the :class:`Backend`
protocol, so one prompting code path serves vLLM, OpenAI-compatible servers
and transformers. This module imports only the light prompting layer; model
backends (``hf_backend``, ``vllm_backend``, ``openai_backend``) are imported
on demand through ``gqlbench.generators.factory``.
"""

from gqlbench.generators.backend import Backend, GenerationConfig, GenerationRequest
from gqlbench.generators.budget import Detail, PromptTooLong, fit_prompt
from gqlbench.generators.cot import cot_answer, cot_messages, cot_stop
from gqlbench.generators.factory import BACKENDS, make_backend
from gqlbench.generators.prompts import render_task
from gqlbench.generators.react import Observer, ReactPrompter, SchemaObserver, react_program, react_stop, run_react
from gqlbench.generators.shots import DEFAULT_SHOTS, SHOT_RULES, select_shots, shot_pool

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
]
