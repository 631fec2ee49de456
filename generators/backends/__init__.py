"""Model backends: in-process vLLM and transformers, OpenAI-compatible servers, and choosing one."""
