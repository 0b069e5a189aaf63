"""The instructor grading pipeline (`backprop-grade`, `backprop-selfgrade`); see docs/instructors.md.

intake.py    any submission layout (nbgrader, folders, LMS zip) -> the course's submitted/
repair.py    a damaged submission aligned with its release (metadata, duplicated or deleted cells)
records.py   the typed records between the stages (Job, Result, Finding, ...)
autograde.py nbgrader in the main process: sanitise, then Autograde with injected outputs
inject.py    nbgrader's Autograde converter fed with the executed notebooks
execute.py   the parallel step: one notebook in a sandboxed kernel (local pool or Dask)
notebook_run.py  nbgrader's Execute, extended (limits, guard calls), run by execute.py
executors.py the local process pool and the Dask client
sandbox.py   bubblewrap + rlimits around the kernel, and the kernel manager that starts it there
tamper.py    static scan of student cells (a rule table)
cell_names.py  what a cell binds and reads, the notebook's module aliases (scan and autograde)
guard_host.py  the worker's side of the in-kernel guard: install, ask, check signed answers
_kernel_guard.py  the integrity guard executed inside the kernel
feedback.py  feedback pages without hidden tests
report.py    grades.csv and the class report
pipeline.py  the whole run (resume, progress, single gradebook writer)
cli.py, selfgrade.py  the two commands
"""
