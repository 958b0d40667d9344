# Two commands do all set-up on a fresh machine:
#   make demo   - creates .venv, installs the pinned runtime, reads a bundled table photo
#   make test   - also installs system packages the tests need (fonts, chromium, PostgreSQL)
#                 and runs the whole test suite
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test venv system clean train-venv

venv: $(STAMP)

$(STAMP): pyproject.toml requirements/runtime.txt requirements/dev.txt
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements/dev.txt
	$(BIN)/python -m pip install -q --no-deps --no-build-isolation -e .
	touch $(STAMP)

system:
	bash scripts/setup-system.sh

demo: venv
	$(BIN)/rummi validate "r5 r6 r7 | k9 b9 o9 | k12 k13 k1"; true
	$(BIN)/rummi hint --table "r5 r6 r7 | k9 b9 o9" --rack "r8 J o9 k1" --opened

test: venv system
	bash scripts/run-tests.sh

# Training needs torch + ultralytics (several GB); kept out of the runtime venv on purpose.
train-venv:
	test -x .venv-train/bin/python || $(PY) -m venv .venv-train
	.venv-train/bin/python -m pip install -q setuptools==80.9.0 wheel==0.48.0
	.venv-train/bin/python -m pip install -q -r requirements/train.txt
	.venv-train/bin/python -m pip install -q --no-deps --no-build-isolation -e .

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
