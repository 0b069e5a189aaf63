"""Instructor tools: build pipeline and grading."""
