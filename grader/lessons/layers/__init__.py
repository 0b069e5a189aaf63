"""Lesson 04 (layers): the PyTorch references the checks compare the student's layers with."""
