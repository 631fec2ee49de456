# The two entry points of the README. Both create .venv on first use.
VENV ?= .venv
STAMP := $(VENV)/.installed

.PHONY: bench test install

$(STAMP): pyproject.toml scripts/install.sh
	VENV=$(VENV) bash scripts/install.sh
	touch $(STAMP)

install: $(STAMP)

# A benchmark run on the bundled default model: CoT, test split, vLLM on CPU.
bench: $(STAMP)
	$(VENV)/bin/gqlbench run --model smollm2 --prompt cot --split test

# The whole test suite, slow end-to-end tests included.
test: $(STAMP)
	$(VENV)/bin/python -m pytest
