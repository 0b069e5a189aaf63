"""`python -m grader.lab`: start JupyterLab on the course (see grader/lab/__init__.py)."""

import sys

from grader.lab import main

sys.exit(main())
