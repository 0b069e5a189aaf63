"""Helpers of individual lessons: datasets, plots, widgets, graph drawings.

A lesson imports what it uses (`from grader.lessons.gradient_flow import ...`); the toolkit
(`grader`: checks, numerical gradients, hints, the trusted path) never imports from here.
"""
