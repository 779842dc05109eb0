# Everything runs inside .venv; `make install` is idempotent and quick when nothing changed.
PY := .venv/bin/python
STAMP := .venv/.installed

.PHONY: install demo test lint format

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv .venv
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: install
	TRITON_INTERPRET=1 $(PY) -m compiler demo

test: install
	TRITON_INTERPRET=1 $(PY) -m pytest tests

lint: install
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

format: install
	$(PY) -m ruff format .
