"""The lying-object corpus: submissions whose return values lie (see corpus.py)."""
