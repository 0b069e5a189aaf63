"""Per-assignment grading cases: alternative correct solutions and typical mistakes.

Each module `NN_topic.py` defines

    ALTERNATIVES = {solution_grade_id: source}   # different but correct: full marks
    MISTAKES = [{"name": str, "cells": {solution_grade_id: source}, "must_fail": [test_grade_id, ...]}]

tests/test_grading.py autogrades each with the real nbgrader.
"""
