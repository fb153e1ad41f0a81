"""guide-tui: answers trip-planning questions from the guides, and shows why."""

import os

# One BLAS thread: the teacher model's small matrix products run several times slower with OpenBLAS's
# threads fighting over two shared cores (results/teacher-2026-12-01.md). Set before numpy is imported.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
