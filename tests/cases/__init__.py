"""Per-assignment grading cases: alternative correct solutions and typical mistakes.

Each module `NN_topic.py` defines

    ALTERNATIVES = {solution_grade_id: source}   # different but correct: full marks
    MISTAKES = [{"name": str, "cells": {solution_grade_id: source}, "must_fail": [test_grade_id, ...]}]

tests/cases/test_corpus.py grades each in process (runner.py, kernel.py) on the lesson's contract
cut; tests/cases/test_kernel_matches_nbgrader.py keeps that grader in step with real nbgrader.
"""
