# The two entry points of the README. Both create .venv on first use.
VENV ?= .venv
STAMP := $(VENV)/.installed

.PHONY: bench test lint install

$(STAMP): pyproject.toml scripts/install.sh
	VENV=$(VENV) bash scripts/install.sh
	touch $(STAMP)

install: $(STAMP)

# A benchmark run on the bundled default model: CoT, test split, vLLM on CPU.
bench: $(STAMP)
	$(VENV)/bin/gqlbench run --model smollm2 --prompt cot --split test

# The quality gates: ruff, then mypy on the package laid out as installed ([tool.ruff], [tool.mypy] in pyproject).
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/python scripts/typecheck.py

# The quality gates, then the whole test suite, slow end-to-end tests included.
test: lint
	$(VENV)/bin/python -m pytest
