# backprop-course: `make lab` opens the course, `make test` runs every test.
# Only Python 3.11 and make are needed; everything else goes into .venv.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(CURDIR)/$(VENV)/bin
# nbgrader runs `alembic`, the notebooks run `jupyter`: both from the venv.
export PATH := $(BIN):$(PATH)

INSTALLED := $(VENV)/.installed
PORT      ?= 8888

.PHONY: setup browser-deps colab-deps lab instructor test test-fast build check-generated lint clean

setup: $(INSTALLED)

$(INSTALLED): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else \
	  "backprop-course needs Python 3.11, but $(PYTHON) is %d.%d: install 3.11 or run `make PYTHON=/path/to/python3.11 ...`" % sys.version_info[:2])'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $@

## Open the course in JupyterLab as a student (prints the URL; works headless and as root):
## lesson 01, or LESSON=05 (a number or the start of a name); LANG=pt opens the Portuguese edition.
## No news pop-up, no instructor tools.
# LANG is also the shell's locale: only a LANG given on make's command line chooses the edition,
# and JupyterLab then runs with the C.UTF-8 locale rather than with LANG=pt.
EDITION := $(if $(filter command line,$(origin LANG)),$(LANG),en)
lab: setup
	$(if $(filter command line,$(origin LANG)),LANG=C.UTF-8 )$(BIN)/python -m grader.lab --language "$(EDITION)" $(if $(LESSON),--lesson "$(LESSON)" ,)-- --ServerApp.port=$(PORT)

## JupyterLab for instructors, on course/: nbgrader's Formgrader and Create Assignment as well.
instructor: setup
	$(BIN)/python -m grader.lab --instructor -- --ServerApp.port=$(PORT)

## Debian's chromium for the real-browser tests (tests/front_ends/browser); installed when missing.
## Playwright drives it: its own browser download does not work everywhere.
browser-deps:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  command -v apt-get >/dev/null 2>&1 || { echo "browser-deps: install chromium (needs apt-get)"; exit 1; }; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq chromium; }

## Colab's ipywidgets 7.7.1 (with ipython_genutils) beside the course's packages, and a Python 3.12
## environment with Colab's numpy and ipywidgets (no torch), in .venv/colab-like/ (from PyPI, once):
## the Colab-like tests use them (tests/environment/colab_like.py).
colab-deps: setup
	$(BIN)/python -m tests.environment.colab_like

## Run the whole test suite (what CI runs), the real-browser tests included.
## One BLAS/OpenMP thread per kernel: two test workers on two cores, no oversubscription.
## Bytecode is written even where PYTHONDONTWRITEBYTECODE is set: the suite starts hundreds of
## kernels and workers, and each would compile the toolkit and the tests again (~12 s of the run).
test: setup browser-deps colab-deps
	env -u PYTHONDONTWRITEBYTECODE OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \
	  $(BIN)/python -m pytest -n 2 --dist loadgroup --durations=15

## The toolkit's, the helpers' and the build's unit tests only (no kernels, no browser): under a minute.
test-fast: setup
	env -u PYTHONDONTWRITEBYTECODE OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \
	  $(BIN)/python -m pytest -n 2 -m "not slow and not browser"

## Regenerate exercises/ and solutions/ from course/ (FORCE=1 re-executes every solution).
## One BLAS thread, as in `make test`: the lessons' small matrix products are slower with more.
build: setup
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \
	  $(BIN)/python -m grader.instructor.build $(if $(FORCE),--force,)

## Fail if exercises/ or solutions/ are stale or were edited by hand.
check-generated: setup
	$(BIN)/python -m grader.instructor.build --check

lint: setup
	$(BIN)/ruff check grader tests benchmarks course

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis test-artifacts

# ---------------------------------------------------------------- instructor grading (issue 8)
# bubblewrap sandboxes student kernels under backprop-grade: installed here when missing and run
# as root, otherwise only warned about. Without it backprop-grade runs kernels unsandboxed and says
# so (console and class report), or refuses with --require-sandbox; the hostile-submission tests
# then skip, so CI installs it.
.PHONY: grading-deps grade selfgrade
grading-deps:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get install -y -q bubblewrap >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q bubblewrap >/dev/null; }; \
	  else echo "WARNING: bubblewrap (bwrap) is not installed: student code will run unsandboxed"; fi; }

# The test suite exercises the sandbox: make sure it is there first.
test: grading-deps

## Grade a class: make grade ASSIGNMENT=01_derivatives SUBMISSIONS=path/to/folder-or.zip [ARGS=--force]
grade: setup grading-deps
	$(BIN)/backprop-grade $(or $(ASSIGNMENT),all) $(SUBMISSIONS) $(ARGS)

## Grade your own notebook against the hidden tests: make selfgrade NOTEBOOK=exercises/01_derivatives/01_derivatives.ipynb
selfgrade: setup
	$(BIN)/backprop-selfgrade $(NOTEBOOK)
