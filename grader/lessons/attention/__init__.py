"""Lesson 12 (attention): its checks and the mistakes they name, the PyTorch references, the
tiny character model, the experiments and views."""
