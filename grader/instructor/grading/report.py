"""grades.csv and the class report (Markdown + PNG plots, and the same as one HTML file).

grades.csv: one row per student; one column per graded cell (`ASSIGNMENT/GRADE_ID`, or
`ASSIGNMENT/NOTEBOOK/GRADE_ID` when an assignment has several notebooks), then one total per
assignment, `total`, `max_total` and `flags` (missing notebooks, crashes, time limits, output
floods, notebooks flagged for review). Scores are the gradebook's (manual overrides included).

The report: the score distribution, the pass rate of every graded cell, the hints the checks
gave most often per graded cell ("41 % — sum-vs-mean: off by the batch size N ..."), read as
data from the autograded notebooks (each check's output carries its hints as JSON beside its
text: grader.report_lines.CHECK_MIME), every shortcut a check refused (autograd inside a
hand-written backward, a loop version inside a vectorised one: grader.by_hand), and every
failure and flag (records.NotebookRecord.flags).
"""

from __future__ import annotations

import base64
import csv
import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbgrader.utils import is_grade

from grader.instructor.grading.records import SubmissionRecord
from grader.report_lines import hints_of_output

from .. import notebook_cells

#: Hint codes that mean "the work was handed to something else" (grader.by_hand): each one is
#: listed, per student, in the report's "Shortcuts" section.
SHORTCUT_CODES = frozenset({"autograd-by-hand", "forbidden-call"})


@dataclass
class ClassData:
    """Everything the outputs are made of, read from the gradebook and the records."""

    assignments: dict[str, list[str]]  # assignment -> notebooks
    cells: list[tuple[str, str, str, float]]  # (assignment, notebook, grade_id, max score)
    students: list[str]
    scores: dict[tuple[str, str, str, str], float] = field(default_factory=dict)  # (student, a, nb, cell)
    submitted: set[tuple[str, str]] = field(default_factory=set)  # (student, assignment)
    records: dict[tuple[str, str], SubmissionRecord] = field(default_factory=dict)
    hints: dict[tuple[str, str, str], Counter] = field(default_factory=lambda: defaultdict(Counter))
    rejected: list[tuple[str, str]] = field(default_factory=list)
    #: (student, assignment, notebook, grade_id, message) of every shortcut a check refused
    shortcuts: list[tuple[str, str, str, str, str]] = field(default_factory=list)

    def column(self, assignment: str, notebook: str, grade_id: str) -> str:
        if len(self.assignments[assignment]) > 1:
            return f"{assignment}/{notebook}/{grade_id}"
        return f"{assignment}/{grade_id}"


def hints_in(cell) -> list[tuple[str, str]]:
    """(code or "", message) of every hint a cell's outputs carry as data (grader.report_lines)."""
    return [hint for out in cell.get("outputs", []) for hint in hints_of_output(out)]


def collect(
    course,
    assignments: dict[str, list[str]],
    records: dict[tuple[str, str], dict],
    rejected: list[tuple[str, str]],
) -> ClassData:
    """Read scores from the gradebook, hints from the autograded notebooks."""
    cells = []
    students: set[str] = set()
    data = ClassData(assignments, cells, [], records=records, rejected=rejected)
    with course.gradebook() as gb:
        for a_name in assignments:
            assignment = gb.find_assignment(a_name)
            for nb in sorted(assignment.notebooks, key=lambda n: n.name):
                for gc in sorted(nb.grade_cells, key=lambda g: _cell_order(course, a_name, nb.name, g.name)):
                    if gc.cell_type == "code" or gc.max_score:
                        cells.append((a_name, nb.name, gc.name, float(gc.max_score)))
            for sub in assignment.submissions:
                student = sub.student.id
                students.add(student)
                data.submitted.add((student, a_name))
                for nb in sub.notebooks:
                    for g in nb.grades:
                        data.scores[(student, a_name, nb.name, g.name)] = float(g.score)
        students |= {s.id for s in gb.students}
    data.students = sorted(students)
    for student, a_name in sorted(data.submitted):
        for nb_name in assignments[a_name]:
            path = course.path("autograded", student, a_name) / f"{nb_name}.ipynb"
            if not path.is_file():
                continue
            nb = nbformat.read(path, as_version=4)
            for cell in nb.cells:
                if cell.cell_type == "code" and is_grade(cell):
                    found = hints_in(cell)
                    for key in {code or _short(msg) for code, msg in found}:
                        data.hints[(a_name, nb_name, notebook_cells.grade_id(cell))][key] += 1
                    data.shortcuts += [(student, a_name, nb_name, notebook_cells.grade_id(cell), msg)
                                       for msg in dict.fromkeys(m for c, m in found if c in SHORTCUT_CODES)]
    return data


_ORDER_CACHE: dict[tuple[str, str], list[str]] = {}


def _cell_order(course, assignment: str, notebook: str, grade_id: str) -> int:
    """Position of a graded cell in the source notebook (gradebook order is alphabetical)."""
    key = (assignment, notebook)
    if key not in _ORDER_CACHE:
        ids: list[str] = []
        path = course.source_path(assignment) / f"{notebook}.ipynb"
        if path.is_file():
            nb = nbformat.read(path, as_version=4)
            ids = [notebook_cells.grade_id(c) for c in nb.cells]
        _ORDER_CACHE[key] = ids
    ids = _ORDER_CACHE[key]
    return ids.index(grade_id) if grade_id in ids else len(ids)


def _short(message: str) -> str:
    return message if len(message) <= 90 else message[:87] + "..."


def student_flags(data: ClassData, student: str) -> list[tuple[str, str, str]]:
    """(where, short, detailed) of every flag of one student: a missing submission, and each of
    their notebooks' `NotebookRecord.flags()`."""
    out = []
    for a_name, notebooks in data.assignments.items():
        if (student, a_name) not in data.submitted:
            out.append((a_name, "no submission", "no submission"))
            continue
        record = data.records.get((student, a_name))
        for nb_name in notebooks:
            info = record.notebooks.get(nb_name) if record else None
            if info is not None:
                out += [(f"{a_name}/{nb_name}", short, long) for short, long in info.flags()]
    return out


def flags(data: ClassData, student: str) -> list[str]:
    """The flags column of grades.csv for one student (each flag once per notebook)."""
    return list(dict.fromkeys(f"{where}: {short}" for where, short, _ in student_flags(data, student)))


def write_csv(data: ClassData, path: Path) -> None:
    header = ["student_id"] + [data.column(a, n, g) for a, n, g, _ in data.cells]
    header += [f"{a}/total" for a in data.assignments] + ["total", "max_total", "flags"]
    max_total = sum(m for *_, m in data.cells)
    rows = []
    for student in data.students:
        row: list = [student]
        totals: dict[str, float] = defaultdict(float)
        for a, n, g, _ in data.cells:
            if (student, a) in data.submitted:
                score = data.scores.get((student, a, n, g), 0.0)
                row.append(_num(score))
                totals[a] += score
            else:
                row.append("")
        row += [_num(totals[a]) for a in data.assignments]
        row += [_num(sum(totals.values())), _num(max_total), "; ".join(flags(data, student))]
        rows.append(row)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}"


def _plots(data: ClassData, out: Path) -> list[tuple[str, str]]:
    """(title, file name) of the PNG plots written to `out`."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    made = []
    max_total = sum(m for *_, m in data.cells) or 1.0
    totals = []
    for student in data.students:
        if any((student, a) in data.submitted for a in data.assignments):
            totals.append(100 * sum(v for (s, *_), v in data.scores.items() if s == student) / max_total)
    if totals:
        fig, ax = plt.subplots(figsize=(6.5, 3.6))
        ax.hist(totals, bins=[i * 5 for i in range(21)], color="#3182bd", edgecolor="white")
        ax.set_xlabel("total score (% of the maximum)")
        ax.set_ylabel("students")
        ax.set_title(f"Score distribution ({len(totals)} students)")
        fig.tight_layout()
        fig.savefig(out / "score_distribution.png", dpi=110)
        plt.close(fig)
        made.append(("Score distribution", "score_distribution.png"))
    rates = pass_rates(data)
    if rates:
        labels = [data.column(a, n, g) for (a, n, g) in rates]
        fig, ax = plt.subplots(figsize=(7.5, 0.32 * len(labels) + 1.2))
        values = [100 * r for r in rates.values()]
        ax.barh(range(len(values)), values, color=["#31a354" if v >= 70 else "#e6550d" for v in values])
        ax.set_yticks(range(len(values)), labels, fontsize=7)
        ax.invert_yaxis()
        ax.set_xlim(0, 100)
        ax.set_xlabel("students with full marks (%)")
        ax.set_title("Pass rate per graded cell")
        fig.tight_layout()
        fig.savefig(out / "pass_rate.png", dpi=110)
        plt.close(fig)
        made.append(("Pass rate per graded cell", "pass_rate.png"))
    return made


def pass_rates(data: ClassData) -> dict[tuple[str, str, str], float]:
    rates = {}
    for a, n, g, m in data.cells:
        takers = [s for s in data.students if (s, a) in data.submitted]
        if takers:
            full = sum(1 for s in takers if data.scores.get((s, a, n, g), 0.0) >= m)
            rates[(a, n, g)] = full / len(takers)
    return rates


def markdown(data: ClassData, plots: list[tuple[str, str]], meta: dict) -> str:
    from grader.hints import HINT_CODES
    from grader.lessons import hint_codes

    explained = {**HINT_CODES, **hint_codes()}

    lines = ["# Class report", ""]
    graded = sorted({s for s, _ in data.submitted})
    lines.append(f"{len(graded)} students with a submission; assignments: {', '.join(data.assignments)}.")
    if meta.get("sandbox_warning"):
        lines += ["", f"**WARNING: {meta['sandbox_warning']}**"]
    if meta.get("summary"):
        lines += ["", meta["summary"]]
    for title, name in plots:
        lines += ["", f"## {title}", "", f"![{title}]({name})"]
    rates = pass_rates(data)
    lines += [
        "",
        "## Graded cells",
        "",
        "| graded cell | points | pass rate | most frequent hints |",
        "| --- | ---: | ---: | --- |",
    ]
    for a, n, g, m in data.cells:
        takers = sum(1 for s in data.students if (s, a) in data.submitted) or 1
        hints = data.hints.get((a, n, g), Counter()).most_common(3)
        described = []
        for key, count in hints:
            pct = round(100 * count / takers)
            text = f"{key}: {explained[key]}" if key in explained else f"“{key}”"
            described.append(f"{pct} % — {text}")
        rate = rates.get((a, n, g))
        lines.append(
            f"| `{data.column(a, n, g)}` | {_num(m)} | "
            f"{'' if rate is None else f'{round(100 * rate)} %'} | "
            f"{'<br>'.join(described).replace('|', '/')} |"
        )
    problems = [
        f"- {'**' + student + '**' if short.startswith('TAMPERING') else student}, {where}: {long}"
        for student in data.students
        for where, short, long in student_flags(data, student)
        if short != "no submission"
    ]
    unsandboxed = sorted(
        f"{student} {a_name}/{nb_name}"
        for (student, a_name), record in data.records.items()
        for nb_name, info in record.notebooks.items()
        if info.sandbox == "none"
    )
    if unsandboxed and not meta.get("sandbox_warning"):
        problems.append(
            f"- **{len(unsandboxed)} notebook(s) ran without the sandbox**: "
            + ", ".join(unsandboxed[:20])
            + (" ..." if len(unsandboxed) > 20 else "")
        )
    lines += ["", "## Shortcuts", ""]
    lines += [f"- {student}, `{data.column(a, n, g)}`: {message}"
              for student, a, n, g, message in data.shortcuts] or [
        "None: no graded cell caught autograd in a hand-written backward or a forbidden call."]
    lines += ["", "## Failures and flags", ""]
    lines += problems or ["None: every notebook ran to the end, none was flagged."]
    if data.rejected:
        lines += ["", "## Files not taken", ""]
        lines += [f"- `{path}`: {reason}" for path, reason in data.rejected]
    return "\n".join(lines) + "\n"


def write_report(data: ClassData, out: Path, meta: dict) -> tuple[Path, Path]:
    out.mkdir(parents=True, exist_ok=True)
    plots = _plots(data, out)
    md = markdown(data, plots, meta)
    (out / "report.md").write_text(md, encoding="utf-8")
    import mistune

    body = mistune.html(md)
    for _, name in plots:
        encoded = base64.b64encode((out / name).read_bytes()).decode()
        body = body.replace(f'src="{name}"', f'src="data:image/png;base64,{encoded}"')
    page = (
        "<!doctype html><html><head><meta charset='utf-8'><title>Class report</title><style>"
        "body{font-family:sans-serif;max-width:1000px;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 6px;font-size:90%}"
        "img{max-width:100%}</style></head><body>" + body + "</body></html>"
    )
    (out / "report.html").write_text(page, encoding="utf-8")
    (out / "report.json").write_text(
        json.dumps(
            {
                "pass_rates": {"/".join(k): v for k, v in pass_rates(data).items()},
                "hints": {"/".join(k): dict(v) for k, v in data.hints.items()},
                "shortcuts": [{"student": st, "cell": data.column(a, n, g), "message": m}
                              for st, a, n, g, m in data.shortcuts],
            },
            indent=1,
        ),
        encoding="utf-8",
    )
    return out / "report.md", out / "report.html"
