"""Build the generated folders from `course/`: `exercises/` (nbgrader release) and
`solutions/` (clean, executed notebooks).

    python -m grader.instructor.build            # rebuild what changed
    python -m grader.instructor.build --force    # re-execute every solution
    python -m grader.instructor.build --check    # exit 1 if anything committed is stale

Exercises are regenerated every time (cheap, byte-for-byte deterministic). A solution is
re-executed only when its inputs changed: the assignment folder in `course/`, the toolkit
(`grader/` but for `lessons/`, `instructor/` and `lab/`), or a lesson module it imports
(`grader/lessons/`). Its stamp
(`metadata.backprop_course`) records the hash of those inputs and of the outputs, so
a stale or hand-edited solution is detected without executing anything.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import uuid
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import nbformat

from grader.instructor import front_ends, translations
from grader.instructor.course_layout import REPO, BuildError, assignments
from grader.instructor.nbgrader_env import nbgrader_api

STAMP_KEY = "backprop_course"
NB_VERSION = 4

_SOLUTION_MARKERS = {"### BEGIN SOLUTION", "### END SOLUTION"}
_HIDDEN_BEGIN, _HIDDEN_END = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
_SCHEME_BEGIN, _SCHEME_END = "=== BEGIN MARK SCHEME ===", "=== END MARK SCHEME ==="


# ---------------------------------------------------------------- discovery


def _files(folder: Path) -> list[Path]:
    skip = {".ipynb_checkpoints", "__pycache__"}
    return sorted(
        p for p in folder.rglob("*") if p.is_file() and not skip & set(p.relative_to(folder).parts)
    )


def _hash_tree(h: hashlib._Hash, folder: Path, label: str) -> None:
    for path in _files(folder):
        h.update(f"{label}/{path.relative_to(folder).as_posix()}\0".encode())
        h.update(path.read_bytes())
        h.update(b"\0")


def _module_file(lessons: Path, dotted: str) -> Path | None:
    """grader/lessons/<a>/<b>.py or grader/lessons/<a>/<b>/__init__.py for `a.b`; None if neither."""
    base = lessons.joinpath(*dotted.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _imported(dotted: str, path: Path) -> list[str]:
    """The grader.lessons modules (dotted, below grader.lessons) that module `dotted` imports."""
    package = dotted.split(".") if path.name == "__init__.py" else dotted.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            if node.level > len(package) + 1:
                continue  # the toolkit (`from ... import`): not a lesson module
            base = package[: len(package) - node.level + 1] + (node.module.split(".") if node.module else [])
            found += [".".join(base)] + [".".join([*base, alias.name]) for alias in node.names]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            found += [n[len("grader.lessons."):] for n in names if n.startswith("grader.lessons.")]
    return [name for name in found if name]


def _lesson_module_files(name: str, root: Path) -> dict[str, Path]:
    """dotted name below grader.lessons -> file, for every module `lesson_modules` lists."""
    lessons = root / "grader" / "lessons"
    notebook = nbformat.read(root / "course" / name / f"{name}.ipynb", as_version=NB_VERSION)
    code = "\n".join(c.source for c in notebook.cells if c.cell_type == "code")
    todo = re.findall(r"^\s*(?:from|import) grader\.lessons\.([\w.]+)", code, flags=re.M)
    found: dict[str, Path] = {}
    while todo:
        module = todo.pop()
        path = _module_file(lessons, module)
        if module in found or path is None:
            continue
        found[module] = path
        parts = module.split(".")
        todo += [".".join(parts[:k]) for k in range(1, len(parts))] + _imported(module, path)
    return found


def lesson_modules(name: str, root: Path = REPO) -> list[str]:
    """The `grader.lessons` modules a lesson's notebook imports, and the ones they import (with the
    packages they sit in, whose `__init__` runs first): dotted names below grader.lessons."""
    return sorted(_lesson_module_files(name, root))


def inputs_hash(name: str, root: Path = REPO, language: str = "en") -> str:
    """Hash of everything a solution's outputs depend on: the lesson's folder in `course/`, the
    toolkit (`grader/` but for `lessons/`, `instructor/` and `lab/`), the lesson modules it imports and,
    when one of them is `datasets`, the shipped data (`grader/lessons/data/`); for another edition
    also its catalogue, its bootstrap cell and the toolkit's compiled messages in its language.
    Editing lesson 07's helper re-executes lesson 07, not the other lessons."""
    h = hashlib.sha256()
    if language != "en":
        h.update(translations.catalogue_path(name, language, root).read_bytes())
        h.update(front_ends.bootstrap_source(language).encode())
        _hash_tree(h, root / "grader" / "locale" / language, "locale")
    _hash_tree(h, root / "course" / name, "course")
    modules = _lesson_module_files(name, root)
    if "datasets" in modules:
        _hash_tree(h, root / "grader" / "lessons" / "data", "data")
    helpers = {path.relative_to(root / "grader").as_posix() for path in modules.values()}
    helpers.add("lessons/__init__.py")
    for path in sorted((root / "grader").rglob("*.py")):
        rel = path.relative_to(root / "grader")
        not_inputs = rel.parts[0] in ("instructor", "lab")
        if not_inputs or (rel.parts[0] == "lessons" and rel.as_posix() not in helpers):
            continue
        h.update(f"grader/{rel.as_posix()}\0".encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def outputs_hash(nb: nbformat.NotebookNode) -> str:
    """Hash of all outputs and widget state of a notebook (detects hand edits)."""
    payload = {
        "outputs": [c.get("outputs", []) for c in nb.cells],
        "widgets": nb.metadata.get("widgets", {}),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


# ---------------------------------------------------------------- solutions


def clean_source(source: str) -> str:
    """Drop nbgrader marker lines, hidden tests and mark schemes from a cell's source."""
    kept: list[str] = []
    skipping = None
    for line in source.splitlines():
        marker = line.strip()
        if skipping:
            if marker == skipping:
                skipping = None
            continue
        if marker == _HIDDEN_BEGIN:
            skipping = _HIDDEN_END
        elif marker == _SCHEME_BEGIN:
            skipping = _SCHEME_END
        elif marker not in _SOLUTION_MARKERS:
            kept.append(line)
    return "\n".join(kept).rstrip()


def solution_skeleton(source_nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The solution notebook before execution: clean sources, no outputs, no nbgrader metadata."""
    nb = nbformat.v4.new_notebook(metadata=dict(source_nb.metadata))
    nb.metadata.pop(STAMP_KEY, None)
    nb.metadata.pop("widgets", None)
    for cell in source_nb.cells:
        source = clean_source(cell.source)
        if not source.strip():
            continue
        if cell.cell_type == "code":
            new = nbformat.v4.new_code_cell(source)
        elif cell.cell_type == "markdown":
            new = nbformat.v4.new_markdown_cell(source)
        else:
            new = nbformat.v4.new_raw_cell(source)
        meta = {k: v for k, v in cell.metadata.items() if k not in {"nbgrader", "execution"}}
        new.metadata.update(meta)
        nb.cells.append(new)
    for index, cell in enumerate(nb.cells):
        cell.id = f"cell-{index:03d}"
    return nb


def _widget_order(nb: nbformat.NotebookNode, state: dict) -> list[str]:
    """Widget model ids in a run-independent order: as the outputs show them, then by reference."""
    order: list[str] = []
    pending = [
        mid
        for cell in nb.cells
        for output in cell.get("outputs", [])
        for mid in re.findall(r"[0-9a-f]{32}", json.dumps(output, sort_keys=True))
    ]
    masked = {
        mid: re.sub(r"[0-9a-f]{32}", "", json.dumps(model, sort_keys=True))
        for mid, model in state.items()
    }
    pending += sorted(state, key=lambda mid: masked[mid])  # models no output shows
    pending.reverse()
    while pending:
        mid = pending.pop()
        if mid in state and mid not in order:
            order.append(mid)
            refs = re.findall(r"IPY_MODEL_([0-9a-f]{32})", json.dumps(state[mid], sort_keys=True))
            pending.extend(reversed(refs))
    return order


def _normalise_widget_ids(nb: nbformat.NotebookNode, name: str) -> None:
    """Replace random widget model ids by ids derived from their order (byte-stable builds)."""
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json")
    if not state or not state.get("state"):
        return
    mapping = {
        old: uuid.uuid5(uuid.NAMESPACE_URL, f"backprop-course/{name}/{i}").hex
        for i, old in enumerate(_widget_order(nb, state["state"]))
    }
    pattern = re.compile("|".join(mapping))
    renamed = pattern.sub(lambda m: mapping[m.group(0)], json.dumps(nb))
    nb.clear()
    nb.update(nbformat.from_dict(json.loads(renamed)))


_KERNEL_FILE = re.compile(r"/tmp/ipykernel_\d+/\d+\.py")


def _normalise_kernel_paths(nb: nbformat.NotebookNode) -> None:
    """Warnings and tracebacks name a per-run temporary file; give it one stable name."""
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if "text" in output:
                output["text"] = _KERNEL_FILE.sub("<cell>", output["text"])
            if "traceback" in output:
                output["traceback"] = [_KERNEL_FILE.sub("<cell>", t) for t in output["traceback"]]


def _coalesce_streams(nb: nbformat.NotebookNode) -> None:
    """Merge consecutive stdout/stderr chunks: how the kernel splits a print is timing noise."""
    for cell in nb.cells:
        merged: list = []
        for output in cell.get("outputs", []):
            previous = merged[-1] if merged else None
            if (
                output.get("output_type") == "stream"
                and previous is not None
                and previous.get("output_type") == "stream"
                and previous.get("name") == output.get("name")
            ):
                previous["text"] += output["text"]
            else:
                merged.append(output)
        if "outputs" in cell:
            cell["outputs"] = merged


def edition_source(name: str, root: Path = REPO, language: str = "en") -> nbformat.NotebookNode:
    """The lesson's instructor notebook in `language` (raises TranslationError when incomplete)."""
    source_nb = nbformat.read(root / "course" / name / f"{name}.ipynb", as_version=NB_VERSION)
    if language == "en":
        return source_nb
    return translations.translate_notebook(source_nb, name, language, root)


def editions(name: str, root: Path = REPO) -> list[str]:
    """The languages besides English that `name` has a catalogue for (translations/<language>/)."""
    return [lang for lang in translations.EDITIONS if translations.catalogue_path(name, lang, root).is_file()]


def edition_dir(folder: Path, name: str, language: str) -> Path:
    """exercises/<name> or solutions/<name>, or exercises/<language>/<name> for another edition."""
    return folder / name if language == "en" else folder / language / name


def released_skeleton(name: str, root: Path = REPO, language: str = "en") -> nbformat.NotebookNode:
    """The solution of `name` in `language` before execution, as students get it: the open line and
    the bootstrap cell added (`front_ends.released`)."""
    return solution_skeleton(front_ends.released(edition_source(name, root, language), name, language))


def execute_solution(name: str, root: Path = REPO, language: str = "en") -> nbformat.NotebookNode:
    """Execute the clean solution of `name` (in `language`) in a scratch copy of its folder."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = released_skeleton(name, root, language)
    label = edition_dir(Path("solutions"), name, language).as_posix()
    with tempfile.TemporaryDirectory(prefix=f"build-{name}-") as scratch:
        shutil.copytree(root / "course" / name, scratch, dirs_exist_ok=True)
        client = NotebookClient(
            nb,
            timeout=600,
            kernel_name="python3",
            record_timing=False,
            resources={"metadata": {"path": scratch}},
        )
        try:
            client.execute()
        except CellExecutionError as err:
            raise BuildError(f"{label}: a cell failed while executing:\n{err}") from None
    _normalise_widget_ids(nb, name)
    _normalise_kernel_paths(nb)
    _coalesce_streams(nb)
    nb.metadata[STAMP_KEY] = {
        "generated_from": f"course/{name}/{name}.ipynb"
        + ("" if language == "en" else f" and translations/{language}/{name}.po"),
        "note": "Generated by `make build`; do not edit by hand.",
        "inputs_sha256": inputs_hash(name, root, language),
        "outputs_sha256": outputs_hash(nb),
    }
    return nb


def _serialise(nb: nbformat.NotebookNode) -> str:
    text = nbformat.writes(nb, version=NB_VERSION)
    return text if text.endswith("\n") else text + "\n"


def write_notebook(nb: nbformat.NotebookNode, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_serialise(nb), encoding="utf-8")


def _build_one_solution(job: tuple[str, str], root: str) -> str:
    name, language = job
    root_path = Path(root)
    nb = execute_solution(name, root_path, language)
    out_dir = edition_dir(root_path / "solutions", name, language)
    if out_dir.exists():
        shutil.rmtree(out_dir)
    shutil.copytree(root_path / "course" / name, out_dir)
    write_notebook(nb, out_dir / f"{name}.ipynb")
    return edition_dir(Path("solutions"), name, language).as_posix()


# ---------------------------------------------------------------- exercises


def generate_exercises(names: Iterable[str], root: Path, out: Path) -> None:
    """Run `nbgrader generate_assignment` for `names` in a scratch course; copy the release to `out`,
    with what students get besides the lesson (`front_ends.released`: the open line, the bootstrap cell)."""
    names = list(names)
    with tempfile.TemporaryDirectory(prefix="build-release-") as scratch:
        scratch_path = Path(scratch)
        shutil.copytree(root / "course", scratch_path / "course")
        shutil.copy(root / "nbgrader_config.py", scratch_path / "nbgrader_config.py")
        api = nbgrader_api(scratch_path, db_url=f"sqlite:///{scratch_path / 'gradebook.db'}")
        for name in names:
            result = api.generate_assignment(name, force=True, create=True)
            if not result["success"]:
                raise BuildError(f"nbgrader generate_assignment {name} failed:\n{result['log']}")
            target = out / name
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(scratch_path / "exercises" / name, target)
            release = target / f"{name}.ipynb"
            write_notebook(front_ends.released(nbformat.read(release, as_version=NB_VERSION), name), release)
            for language in editions(name, root):
                _write_edition_release(name, root, out, language)


def _write_edition_release(name: str, root: Path, out: Path, language: str) -> None:
    """exercises/<language>/<name>: the English release with its plain cells translated (every
    cell nbgrader grades, locks or takes a solution from is the English release's own)."""
    target = edition_dir(out, name, language)
    if target.exists():
        shutil.rmtree(target)
    try:
        release = nbformat.read(out / name / f"{name}.ipynb", as_version=NB_VERSION)
        translated = translations.translate_notebook(release, name, language, root)
    except translations.TranslationError as err:
        print(f"exercises/{language}/{name}: not written, its translation is incomplete "
              f"(`python -m grader.instructor.translations check {name}`): "
              f"{len(str(err).splitlines()) - 1} problem(s)")
        return
    shutil.copytree(out / name, target)
    write_notebook(translated, target / f"{name}.ipynb")


# ---------------------------------------------------------------- checking


def _solution_problems(name: str, root: Path, language: str = "en") -> list[str]:
    label = edition_dir(Path("solutions"), name, language).as_posix()
    if language != "en":
        found = translations.problems(name, language, root)
        if found:
            return [f"{label}: its translation has {len(found)} problem(s), the first: {found[0]} "
                    f"(`python -m grader.instructor.translations check {name}`)"]
    return _stale_solution(name, root, language)


def _stale_solution(name: str, root: Path, language: str) -> list[str]:
    """What differs between solutions/ and a fresh execution of a lesson whose edition is complete."""
    label = edition_dir(Path("solutions"), name, language).as_posix()
    path = root / label / f"{name}.ipynb"
    if not path.is_file():
        return [f"{label}/{name}.ipynb is missing: run `make build`"]
    committed = nbformat.read(path, as_version=NB_VERSION)
    problems = []
    if path.read_text(encoding="utf-8") != _serialise(committed):
        problems.append(f"{label}/{name}.ipynb was re-saved or edited by hand")
    stamp = committed.metadata.get(STAMP_KEY, {})
    if stamp.get("inputs_sha256") != inputs_hash(name, root, language):
        problems.append(
            f"{label} is stale: course/{name}, its translation or grader/ changed since it was built "
            "(run `make build`)"
        )
    skeleton = released_skeleton(name, root, language)
    expected = [(c.cell_type, c.source) for c in skeleton.cells]
    if [(c.cell_type, c.source) for c in committed.cells] != expected:
        problems.append(f"{label}: cell sources differ from course/{name} (hand-edited?)")
    if stamp.get("outputs_sha256") != outputs_hash(committed):
        problems.append(f"{label}: outputs were edited by hand (hash mismatch)")
    for src in _files(root / "course" / name):
        if src.suffix == ".ipynb":
            continue
        rel = src.relative_to(root / "course" / name)
        copy = root / label / rel
        if not copy.is_file() or copy.read_bytes() != src.read_bytes():
            problems.append(f"{label}/{rel.as_posix()} differs from course/{name}")
    return problems


def _compare_trees(expected: Path, actual: Path, label: str) -> list[str]:
    exp = {p.relative_to(expected).as_posix(): p for p in _files(expected)}
    act = {p.relative_to(actual).as_posix(): p for p in _files(actual)} if actual.is_dir() else {}
    problems = [f"{label}/{rel} is missing" for rel in sorted(exp.keys() - act.keys())]
    problems += [f"{label}/{rel} should not be there" for rel in sorted(act.keys() - exp.keys())]
    problems += [
        f"{label}/{rel} differs from what nbgrader generates (stale or hand-edited)"
        for rel in sorted(exp.keys() & act.keys())
        if exp[rel].read_bytes() != act[rel].read_bytes()
    ]
    return problems


def check(root: Path = REPO) -> list[str]:
    """Everything stale or hand-edited in `exercises/` and `solutions/` (empty when all is fresh)."""
    names = assignments(root)
    problems = []
    with tempfile.TemporaryDirectory(prefix="check-release-") as scratch:
        generate_exercises(names, root, Path(scratch))
        problems += _compare_trees(Path(scratch), root / "exercises", "exercises")
    for name in names:
        for language in ["en", *editions(name, root)]:
            if (name, language) not in translations.PENDING:  # declared unfinished: not built yet
                problems += _solution_problems(name, root, language)
    for language in ["en", *translations.EDITIONS]:
        solutions = edition_dir(root / "solutions", "", language)
        extra = sorted(p.name for p in solutions.iterdir() if p.is_dir()) if solutions.is_dir() else []
        problems += [f"{solutions.relative_to(root).as_posix()}/{n} has no course/{n}" for n in extra
                     if n not in names and n not in translations.EDITIONS]
    return problems


# ---------------------------------------------------------------- command line


def build(root: Path = REPO, force: bool = False, only: Iterable[str] = ()) -> list[str]:
    """Regenerate exercises and (re-)execute the solutions whose inputs changed."""
    names = assignments(root)
    only = list(only)
    unknown = [n for n in only if n not in names]
    if unknown:
        raise BuildError(f"unknown assignment(s) {unknown}; course/ has {names}")
    exercises = root / "exercises"
    exercises.mkdir(exist_ok=True)
    for stale in [p for p in exercises.iterdir() if p.is_dir() and p.name not in names
                  and p.name not in translations.EDITIONS]:
        shutil.rmtree(stale)
    generate_exercises(names, root, exercises)
    print(f"exercises/: {len(names)} assignment(s) generated by nbgrader")

    solutions = root / "solutions"
    solutions.mkdir(exist_ok=True)
    for stale in [p for p in solutions.iterdir() if p.is_dir() and p.name not in names
                  and p.name not in translations.EDITIONS]:
        shutil.rmtree(stale)
    jobs = [(n, lang) for n in (only or names) for lang in ["en", *editions(n, root)]]
    incomplete = {(n, lang) for n, lang in jobs if lang != "en" and translations.problems(n, lang, root)}
    for name, language in sorted(incomplete):
        print(f"solutions/{language}/{name}: not built, its translation is incomplete "
              f"(`python -m grader.instructor.translations check {name}`)")
    # stale (or forced) and complete: executed
    todo = [(name, language) for name, language in jobs if (name, language) not in incomplete
            and (force or _stale_solution(name, root, language))]
    for name, language in sorted(set(jobs) - set(todo) - incomplete):
        print(f"{edition_dir(Path('solutions'), name, language).as_posix()}: up to date")
    workers = max(1, min(len(todo), os.cpu_count() or 1))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for label in pool.map(_build_one_solution, todo, [str(root)] * len(todo)):
            print(f"{label}: executed")
    return [name for name, _ in todo]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("assignments", nargs="*", help="only these (default: all)")
    parser.add_argument("--force", action="store_true", help="re-execute every solution")
    parser.add_argument("--check", action="store_true", help="only report stale files")
    args = parser.parse_args(argv)
    try:
        if args.check:
            problems = check()
            for line in problems:
                print(f"✗ {line}")
            print("generated folders are up to date" if not problems else "run `make build`")
            return 1 if problems else 0
        build(force=args.force, only=args.assignments)
    except BuildError as err:
        print(f"build failed: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
