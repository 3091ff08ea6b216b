# The commands of the README:
#   make demo   installs everything, fills the SQLite database from data/, answers a sample question on CPU
#   make test   installs everything, then runs the whole test suite
#   make lint   ruff over the repository, mypy --strict over grammars, verifier, streaming and citegen (pyproject.toml)
#   make bench  regenerates every table of the README's Numbers section (python -m bench, about an hour)
VENV        ?= .venv
PYTHON      ?= python3
# The CPU wheel on these machines; a GPU machine may set TORCH_SPEC to its own build.
TORCH_SPEC  ?= torch==2.13.0
QUESTION    ?= 민법 제750조는 어떤 내용인가요?
BIN         := $(VENV)/bin
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: install demo test lint bench

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet "$(TORCH_SPEC)"
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

install: $(BIN)/.installed

demo: install
	$(BIN)/citegen-admin import data/law data/cases
	$(BIN)/citegen ask "$(QUESTION)"

test: install
	$(BIN)/pytest

lint: install
	$(BIN)/ruff check .
	$(BIN)/mypy

bench: install
	$(BIN)/python -m bench $(if $(ONLY),--only $(ONLY))
