"""guide-tui: answers trip-planning questions from the guides, and shows why."""

import os

# One BLAS thread: the teacher model's small matrix products run several times slower with OpenBLAS's
# threads fighting over two shared cores (results/teacher-2026-12-01.md). Set before numpy is imported.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# Never a model hub: every model is read from a local folder. Set before any Hugging Face library reads it.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
