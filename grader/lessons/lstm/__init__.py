"""Lesson 11 (the LSTM): the PyTorch references, the models built on the student's steps, the
memory experiments and their training."""
