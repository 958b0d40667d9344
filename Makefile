# Two commands do all set-up on a fresh machine:
#   make demo   - creates .venv with the pinned runtime only, reads a bundled table photo,
#                 hints a move and judges a turn
#   make test   - adds the test tools to .venv, installs the system packages the tests need
#                 (fonts, chromium, PostgreSQL), checks the code with ruff and runs every test
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
RUNTIME_STAMP := $(VENV)/.runtime-installed
DEV_STAMP := $(VENV)/.dev-installed

.PHONY: demo test venv dev-venv system lint clean train-venv

venv: $(RUNTIME_STAMP)

$(RUNTIME_STAMP): pyproject.toml requirements/runtime.txt
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements/runtime.txt setuptools==80.9.0 wheel==0.48.0
	$(BIN)/python -m pip install -q --no-deps --no-build-isolation -e .
	$(BIN)/python -m rummi.api.solver_warmup
	touch $(RUNTIME_STAMP)

dev-venv: $(DEV_STAMP)

$(DEV_STAMP): $(RUNTIME_STAMP) requirements/dev.txt
	$(BIN)/python -m pip install -q -r requirements/dev.txt
	touch $(DEV_STAMP)

system:
	bash scripts/setup-system.sh

# The main job on a bundled photo: find and read every tile, lay out the sets, check them,
# and write the photo with each tile outlined (demo.png); then a hint and a referee verdict.
demo: venv
	$(BIN)/rummi scan vision/samples/images/sets-rummy-11.jpg --draw demo.png
	@echo "annotated photo written to demo.png"
	$(BIN)/rummi hint --table "r5 r6 r7 | k9 b9 o9" --rack "r8 J o9 k1" --opened
	$(BIN)/rummi referee --before "r4 J r6 | b5 k5 o5 r5" --after "r4 r5 r6 | b5 k5 o5 | J k7 k8" --opened --rack "k7 k8 b2" --preset goliath_modern

lint: dev-venv
	$(BIN)/ruff check .

test: dev-venv system lint
	bash scripts/run-tests.sh

# Training needs torch + ultralytics (several GB); kept out of the runtime venv on purpose.
train-venv:
	test -x .venv-train/bin/python || $(PY) -m venv .venv-train
	.venv-train/bin/python -m pip install -q setuptools==80.9.0 wheel==0.48.0
	.venv-train/bin/python -m pip install -q -r requirements/train.txt
	.venv-train/bin/python -m pip install -q --no-deps --no-build-isolation -e .

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
