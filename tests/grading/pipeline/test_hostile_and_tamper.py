"""One class with honest, hostile and tampering students, graded by one backprop-grade run.

Every student answers part2 correctly: whatever part1 does, part2 keeps its point. Hostile code
(infinite loop, crash, os._exit, memory hog, print flood, ignored interrupts) costs at most its
own notebook and the run goes on; tampering (monkeypatching numpy, the course's checks,
builtins, IPython's machinery) scores 0 and is flagged for review; correct code that prints
warnings keeps every point. The sandbox keeps student code away from the course, the gradebook,
other students' files and the network, and nothing outside a submission's results changes.
"""

from __future__ import annotations

import ast
import os
import socket

import pytest

from grader.instructor.grading import sandbox
from grader.instructor.grading.pipeline import Options, grade
from tests.grading.pipeline.helpers import ASSIGNMENT, SynthCourse, tree_digest

FULL = {"part1": {"test_double": 2.0, "test_later": 1.0}, "part2": {"test_triple": 1.0}}
ZERO1 = {"part1": {"test_double": 0.0, "test_later": 0.0}, "part2": {"test_triple": 1.0}}
WRONG = "def double(x):\n    return x"

# student -> (answer to `double`, code in the free cell, expected scores, flagged for review)
CASES = {
    "honest": (None, "pass", FULL, False),
    "halfer": (
        WRONG,
        "pass",
        {"part1": {"test_double": 0.0, "test_later": 0.0}, "part2": {"test_triple": 1.0}},
        False,
    ),
    "warner": (
        "def double(x):\n    import sys, warnings\n    warnings.warn('careful', RuntimeWarning)\n"
        "    print('a note on stderr', file=sys.stderr)\n    np.exp(np.array([1000.0]))\n    return 2 * x",
        "import warnings\nwarnings.warn('deprecated', DeprecationWarning)",
        FULL,
        False,
    ),
    "looper": (None, "while True:\n    pass", FULL, False),
    "crasher": (
        None,
        "import faulthandler\nfaulthandler._sigsegv()  # a segfault, as a buggy C extension would",
        {"part1": {"test_double": 2.0, "test_later": 0.0}, "part2": {"test_triple": 1.0}},
        False,
    ),
    "exiter": (None, "import os\nos._exit(3)", ZERO1, True),
    "hog": (None, "big = np.ones(3 * 1024**3 // 8)\nbig[:] = 1.0", FULL, False),
    "flooder": (None, "for i in range(40000):\n    print('x' * 100)", FULL, False),
    "deaf": (
        None,
        "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass",
        ZERO1,
        True,
    ),
    # tampering that would make a wrong answer pass under plain nbgrader
    "shadower": (
        WRONG + "\n\ndef check_close(*args, **kwargs):\n    return None\n\n"
        "np.allclose = lambda *a, **k: True\nabs = lambda x: 0",
        "pass",
        ZERO1,
        True,
    ),
    "transformer": (
        WRONG + "\n\nimport ast\n\nclass _Quiet(ast.NodeTransformer):\n"
        "    def visit_Assert(self, node):\n        return ast.Pass()\n"
        "    def visit_Call(self, node):\n"
        "        if getattr(node.func, 'id', '') == 'check_close':\n"
        "            return ast.Constant(None)\n        return node\n\n"
        "get_ipython().ast_transformers.append(_Quiet())",
        "pass",
        ZERO1,
        True,
    ),
    # found only at run time: no module name or attribute appears in the code
    "sneaky": (
        "def double(x):\n    return 2 * x\n\n_g = globals()\n_g['check_' + 'close'] = lambda *a, **k: None\n"
        "vars(np)['all' + 'close'] = lambda *a, **k: True",
        "pass",
        ZERO1,
        True,
    ),
    "tracer": (
        "import sys\nsys.settrace(lambda *a: None)\ndef double(x):\n    return 2 * x",
        "pass",
        ZERO1,
        True,
    ),
    # the right answer, computed by autograd where the test asks for it by hand (by_hand)
    "shortcutter": (
        "def double(x):\n    import torch\n"
        "    t = torch.tensor(np.asarray(x, dtype=float), requires_grad=True)\n"
        "    (t * t).sum().backward()  # d(t^2)/dt = 2t\n    return t.grad.numpy()",
        "pass",
        {"part1": {"test_double": 0.0, "test_later": 1.0}, "part2": {"test_triple": 1.0}},
        False,
    ),
    # legitimate code that looks a bit like tampering
    "tidy": (
        "import warnings\nwarnings.filterwarnings('ignore')\nnp.seterr(all='ignore')\n"
        "def allclose(a, b):\n    return np.allclose(a, b)\n\ndef double(x):\n    out = 2 * np.asarray(x)\n"
        "    return out if allclose(out, 2 * np.asarray(x)) else None",
        "x = 3\nrng = np.random.default_rng(0)",
        FULL,
        False,
    ),
}

PROBE = """\
import os, socket
_probe = {{}}
for _label, _path in [("gradebook", {gradebook!r}), ("source", {source!r}), ("submitted", {submitted!r}),
                      ("shadow", "/etc/shadow"), ("instructor", {instructor!r}), ("toolkit", {toolkit!r})]:
    try:
        os.listdir(_path) if os.path.isdir(_path) else open(_path, "rb").read(16)
        _probe[_label] = "READ"
    except Exception as _e:
        _probe[_label] = type(_e).__name__
for _label, _path in [("write_course", {course!r} + "/pwned.txt"), ("delete_other", {other!r})]:
    try:
        os.remove(_path) if _label == "delete_other" else open(_path, "w").write("x")
        _probe[_label] = "DONE"
    except Exception as _e:
        _probe[_label] = type(_e).__name__
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=3).close()
    _probe["host_port"] = "CONNECTED"
except Exception as _e:
    _probe["host_port"] = type(_e).__name__
_probe["interfaces"] = sorted(name for _, name in socket.if_nameindex())
_probe["uid"] = os.getuid()
print("PROBE", repr(_probe))"""


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    course = SynthCourse(root / "course", extra_config="\nc.Execute.timeout = 4\n")
    inbox = root / "inbox"
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    for student, (double, free, _, _) in CASES.items():
        part1 = course.honest("part1", free)
        if double is not None:
            part1 = course.answer("part1", {"double": double, "student_code": free})
        course.submit(inbox, student, {"part1": part1, "part2": course.honest("part2")})
    probe = PROBE.format(
        gradebook=str(course.root / "gradebook.db"),
        source=str(course.root / "course"),
        submitted=str(course.root / "submitted"),
        course=str(course.root),
        other=str(course.root / "submitted" / "honest" / ASSIGNMENT / "part1.ipynb"),
        port=port,
        instructor=str(sandbox.GRADER_DIR / "instructor" / "build.py"),
        toolkit=str(sandbox.GRADER_DIR / "trusted.py"),
    )
    course.submit(inbox, "prober", {"part1": course.honest("part1", probe), "part2": course.honest("part2")})
    # what must not change: everything but the results of the graded submissions
    before = tree_digest(
        course.root, exclude=("autograded", "feedback", "grading", "gradebook.db", "submitted")
    )
    lines: list[str] = []
    summary = grade(
        Options(
            course_dir=course.root,
            assignment=ASSIGNMENT,
            submissions=inbox,
            workers=2,
            memory="1G",
            output_limit=1 << 20,
            notebook_timeout=120,
            progress=lines.append,
        )
    )
    server.close()
    return course, summary, lines, before


@pytest.mark.parametrize("student", list(CASES))
def test_every_student_gets_the_grade_they_deserve(graded, student):
    course, summary, lines, _ = graded
    _, _, expected, flagged = CASES[student]
    assert course.scores(student) == expected, "\n".join(lines)
    review = course.needs_review(student)
    assert review["part1"] is flagged
    assert review["part2"] is False


def test_the_run_completes_and_records_every_reason(graded):
    course, summary, lines, _ = graded
    assert not summary.failed, summary.failed
    assert len(summary.graded) == len(CASES) + 1
    report = (course.root / "grading" / "report.md").read_text()
    state = course.root / "grading" / "state" / ASSIGNMENT
    import json

    def info(student):
        return json.loads((state / f"{student}.json").read_text())["notebooks"]["part1"]

    assert info("crasher")["status"] == "kernel_died"
    assert info("exiter")["status"] == "kernel_died"
    assert info("deaf")["status"] == "unresponsive"
    kinds = {who: [e["kind"] for e in info(who)["events"]] for who in ("flooder", "hog", "looper")}
    assert "output-flood" in kinds["flooder"] and "memory" in kinds["hog"], kinds
    assert "cell-timeout" in kinds["looper"] or "stopped" in kinds["looper"], kinds
    assert any("MemoryError" in e["message"] for e in info("hog")["events"])
    for student in ("crasher", "exiter", "deaf", "flooder", "shadower", "transformer", "sneaky", "tracer"):
        assert student in report, f"{student} is missing from the report"
    assert info("honest")["status"] == "ok" and not info("honest")["events"]
    assert not info("tidy")["tamper"] and not info("tidy")["suspicious"]


def test_tampering_is_found_statically_and_at_run_time(graded):
    course, *_ = graded
    import json

    state = course.root / "grading" / "state" / ASSIGNMENT
    sneaky = json.loads((state / "sneaky.json").read_text())["notebooks"]["part1"]["tamper"]
    messages = " ".join(f["message"] for f in sneaky)
    assert "check_close" in messages and "numpy.allclose" in messages, sneaky
    shadower = json.loads((state / "shadower.json").read_text())["notebooks"]["part1"]["tamper"]
    assert any("abs" in f["message"] for f in shadower), shadower


def test_the_sandbox_keeps_student_code_in(graded):
    course, summary, *_ = graded
    if summary.sandbox != "bwrap":
        pytest.skip("bubblewrap is not available here: grading ran unsandboxed")
    import nbformat

    nb = nbformat.read(course.root / "autograded" / "prober" / ASSIGNMENT / "part1.ipynb", as_version=4)
    text = "".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", []))
    line = next(ln for ln in text.splitlines() if ln.startswith("PROBE "))
    probe = ast.literal_eval(line[len("PROBE ") :])
    for key in ("gradebook", "source", "submitted", "shadow", "instructor"):
        assert probe[key] != "READ", probe
    assert probe["toolkit"] == "READ", probe  # the kernel imports the toolkit, not the instructor's tools
    assert probe["write_course"] != "DONE" and probe["delete_other"] != "DONE", probe
    assert probe["host_port"] != "CONNECTED" and probe["interfaces"] == ["lo"], probe
    if os.geteuid() == 0:
        assert probe["uid"] == sandbox.DEFAULT_UID
    assert course.scores("prober") == FULL


def test_nothing_outside_the_results_changed(graded):
    course, _, _, before = graded
    after = tree_digest(
        course.root, exclude=("autograded", "feedback", "grading", "gradebook.db", "submitted")
    )
    assert after == before
    assert not (course.root / "pwned.txt").exists()
    # the submissions themselves are intact (the honest one was a deletion target)
    assert (course.root / "submitted" / "honest" / ASSIGNMENT / "part1.ipynb").is_file()


def test_feedback_hides_the_hidden_tests(graded):
    course, *_ = graded
    import nbformat

    from grader.instructor.grading.feedback import hidden_lines, leaks

    hidden = set()
    for part in ("part1", "part2"):
        hidden |= hidden_lines(
            nbformat.read(course.root / "course" / ASSIGNMENT / f"{part}.ipynb", as_version=4)
        )
    assert hidden
    pages = list((course.root / "feedback").rglob("*.html"))
    assert len(pages) == 2 * (len(CASES) + 1)
    for page in pages:
        text = page.read_text()
        assert not leaks(text, hidden), (page, leaks(text, hidden))
        assert "BEGIN HIDDEN TESTS" not in text
    # what failed is still said: the hidden assert's own message
    shadower = (course.root / "feedback" / "transformer" / ASSIGNMENT / "part1.html").read_text()
    assert "TamperingDetected" in shadower


def test_grades_csv_and_class_report(graded):
    import csv

    course, summary, *_ = graded
    rows = list(csv.DictReader((course.root / "grading" / "grades.csv").open()))
    assert [r["student_id"] for r in rows] == sorted([*CASES, "prober"])
    by_student = {r["student_id"]: r for r in rows}
    for student, (_, _, expected, flagged) in CASES.items():
        row = by_student[student]
        for part, cells in expected.items():
            for gid, score in cells.items():
                assert float(row[f"{ASSIGNMENT}/{part}/{gid}"]) == score
        assert float(row["total"]) == sum(sum(c.values()) for c in expected.values())
        assert row["max_total"] == "4"
        assert ("review" in row["flags"]) is flagged, row["flags"]
    report = (course.root / "grading" / "report.md").read_text()
    # the wrong `double` (returns x: half the expected value) is diagnosed by the checks' hints
    line = next(ln for ln in report.splitlines() if f"{ASSIGNMENT}/part1/test_double`" in ln)
    assert "scale" in line and "%" in line, line
    # the shortcut is listed, with its student, cell and message; nobody else is
    shortcuts = report.split("## Shortcuts")[1].split("##")[0]
    listed = [ln for ln in shortcuts.splitlines() if ln.startswith("- ")]
    assert len(listed) == 1, listed
    assert listed[0].startswith(f"- shortcutter, `{ASSIGNMENT}/part1/test_double`"), listed
    assert "backward pass by hand; autograd is the referee" in listed[0]
    assert (course.root / "grading" / "score_distribution.png").stat().st_size > 1000
    assert (course.root / "grading" / "pass_rate.png").stat().st_size > 1000
    html = (course.root / "grading" / "report.html").read_text()
    assert "data:image/png;base64," in html
