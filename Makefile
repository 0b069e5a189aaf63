# backprop-course: `make lab` opens the course, `make test` runs every test.
# Only Python 3.11 and make are needed; everything else goes into .venv.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(CURDIR)/$(VENV)/bin
# nbgrader runs `alembic`, the notebooks run `jupyter`: both from the venv.
export PATH := $(BIN):$(PATH)

INSTALLED := $(VENV)/.installed
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)
PORT      ?= 8888

.PHONY: setup lab test build check-generated lint clean

setup: $(INSTALLED)

$(INSTALLED): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else \
	  "backprop-course needs Python 3.11, but $(PYTHON) is %d.%d: install 3.11 or run `make PYTHON=/path/to/python3.11 ...`" % sys.version_info[:2])'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $@

## Open the course in JupyterLab (prints the URL; works headless and as root).
lab: setup
	$(BIN)/jupyter lab --ServerApp.root_dir="$(CURDIR)" --LabApp.default_url=/lab/tree/exercises \
	  --ServerApp.port=$(PORT) $(ROOT_FLAG)

## Run the whole test suite (what CI runs).
test: setup
	$(BIN)/python -m pytest -n 2 --dist loadgroup

## Regenerate exercises/ and solutions/ from course/ (FORCE=1 re-executes every solution).
build: setup
	$(BIN)/python -m grader.instructor.build $(if $(FORCE),--force,)

## Fail if exercises/ or solutions/ are stale or were edited by hand.
check-generated: setup
	$(BIN)/python -m grader.instructor.build --check

lint: setup
	$(BIN)/ruff check grader tests

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis test-artifacts
