"""Build hook: the wheel carries the checkout's index/ and corpus/ as guide_tui/bundled/ (guide_tui/paths.py finds them).

Copied whole (whatever index/ holds) and side by side, so an index manifest's "../corpus" resolves
there as in the checkout; the repository keeps its top-level folders. Project metadata is in pyproject.toml.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

BUNDLED_FOLDERS = ("index", "corpus")


class BuildWithBundledData(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads the checkout's own folders
            return
        target = Path(self.build_lib) / "guide_tui" / "bundled"
        shutil.rmtree(target, ignore_errors=True)  # a rebuilt index renames its files: no stale copies in the wheel
        for name in BUNDLED_FOLDERS:
            shutil.copytree(name, target / name, ignore=shutil.ignore_patterns(".building-*", "__pycache__"))  # no half-built index


setup(cmdclass={"build_py": BuildWithBundledData})
