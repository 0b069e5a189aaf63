"""`make lab` / `make instructor`: which lesson opens, and which Jupyter configuration each role gets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest

from grader import lab
from grader.instructor.build import REPO

LABEXTENSIONS = Path(sys.prefix) / "share" / "jupyter" / "labextensions"


@pytest.mark.parametrize("prefix, lesson", [
    ("5", "05_softmax"), ("05", "05_softmax"), ("softmax", "05_softmax"), ("05_soft", "05_softmax"),
    ("LSTM", "11_lstm"), (" 12 ", "12_attention"), ("13", "13_leaky_abstraction"), ("rnn", "10_rnn"),
])
def test_a_lesson_is_found_by_number_or_name(prefix, lesson) -> None:
    assert lab.find_lesson(prefix) == lesson


@pytest.mark.parametrize("prefix, says", [("99", "matches no lesson"), ("l", "matches 3 lessons"),
                                          ("", "matches 13 lessons")])
def test_an_unknown_lesson_is_told_what_exists(prefix, says) -> None:
    with pytest.raises(lab.NoSuchLesson) as err:
        lab.find_lesson(prefix)
    message = str(err.value)
    assert says in message and "make lab LESSON=05" in message and "01_derivatives" in message, message


def test_student_opens_the_lesson_and_instructor_opens_course() -> None:
    argv, env = lab.lab_command("student", "07")
    assert "--LabApp.default_url=/lab/tree/exercises/07_gradient_flow/07_gradient_flow.ipynb" in argv
    assert env["JUPYTER_CONFIG_PATH"].split(os.pathsep)[:2] == [str(REPO / "jupyter" / "student"),
                                                               str(REPO / "jupyter" / "common")]
    argv, env = lab.lab_command("instructor", extra=["--ServerApp.port=9999"])
    assert "--LabApp.default_url=/lab/tree/course" in argv and argv[-1] == "--ServerApp.port=9999"
    assert env["JUPYTER_CONFIG_PATH"].split(os.pathsep)[0] == str(REPO / "jupyter" / "common")
    assert str(REPO / "jupyter" / "student") not in env["JUPYTER_CONFIG_PATH"]
    first, _ = lab.lab_command("student")
    assert "--LabApp.default_url=/lab/tree/exercises/01_derivatives/01_derivatives.ipynb" in first


def test_a_student_opens_the_portuguese_edition() -> None:
    argv, _ = lab.lab_command("student", "04", language="pt")
    assert "--LabApp.default_url=/lab/tree/exercises/pt/04_layers/04_layers.ipynb" in argv
    with pytest.raises(lab.NoSuchLesson, match="not a language of the course: choose one of en, pt"):
        lab.lab_command("student", "04", language="fr")


def test_a_folder_without_lessons_is_named(tmp_path) -> None:
    with pytest.raises(lab.NoSuchLesson, match="has no exercises/ folder"):
        lab.lab_command("student", root=tmp_path)


def test_config_path_keeps_what_was_set_before() -> None:
    path = lab.config_path("student", environ={"JUPYTER_CONFIG_PATH": "/site/jupyter"})
    assert path.split(os.pathsep)[-1] == "/site/jupyter"
    assert lab.config_path("instructor", environ={}) == str(REPO / "jupyter" / "common")


def test_the_cli_refuses_an_unknown_lesson_with_a_message() -> None:
    result = subprocess.run([sys.executable, "-m", "grader.lab", "--lesson", "99"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "'99' matches no lesson" in result.stderr


def test_make_lab_passes_the_lesson_and_the_port() -> None:
    dry = subprocess.run(["make", "-n", "lab", "LESSON=05", "PORT=8899"], cwd=REPO,
                         capture_output=True, text=True, timeout=60)
    assert 'grader.lab --language "en" --lesson "05" -- --ServerApp.port=8899' in dry.stdout, dry.stdout
    assert "LANG=C.UTF-8" not in dry.stdout, "the shell's own LANG (a locale) does not choose the edition"
    dry = subprocess.run(["make", "-n", "lab", "LANG=pt", "LESSON=04"], cwd=REPO, capture_output=True,
                         text=True, timeout=60, env={**os.environ, "LANG": "en_US.UTF-8"})
    assert "LANG=C.UTF-8 " in dry.stdout, dry.stdout
    assert 'grader.lab --language "pt" --lesson "04" --' in dry.stdout, dry.stdout
    dry = subprocess.run(["make", "-n", "instructor"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert "grader.lab --instructor" in dry.stdout, dry.stdout


def _plugins_of(package: str) -> set[str]:
    """Plugin ids named in an installed JupyterLab extension's bundles."""
    folder = LABEXTENSIONS / package / "static"
    text = "".join(p.read_text(errors="ignore") for p in folder.glob("*.js"))
    return {f"{package}:{part.split(chr(34))[0]}" for part in text.split(f'"{package}:')[1:]}


def test_the_student_configuration_names_real_plugins_and_server_extensions() -> None:
    """A renamed nbgrader plugin would silently come back: every name must exist as installed."""
    page = json.loads((REPO / "jupyter" / "student" / "labconfig" / "page_config.json").read_text())
    disabled = page["disabledExtensions"]
    assert disabled and all(value is True for value in disabled.values())
    installed = _plugins_of("@jupyter/nbgrader")
    assert set(disabled) <= installed, set(disabled) - installed
    assert "@jupyter/nbgrader:validate-assignment" not in disabled, "students keep Validate"
    server = json.loads((REPO / "jupyter" / "student" / "jupyter_server_config.json").read_text())
    extensions = server["ServerApp"]["jpserver_extensions"]
    assert set(extensions.values()) == {False}
    assert all(find_spec(name) for name in extensions), extensions
    assert "nbgrader.server_extensions.formgrader" in extensions


def test_the_news_question_is_off_for_everyone() -> None:
    overrides = json.loads(
        (REPO / "jupyter" / "common" / "labconfig" / "default_setting_overrides.json").read_text())
    assert overrides["@jupyterlab/apputils-extension:notification"] == {
        "fetchNews": "false", "checkForUpdates": False}
