#!/usr/bin/env python3
"""A plain ONNX Runtime session on the batches kb embeds: the reference
that `kb add`'s throughput is compared with.

    ort_reference.py MODEL.onnx TOKENIZER.json BATCHES.jsonl [THREADS]

BATCHES.jsonl is what `kb-bench model --dump` writes: one JSON list of
texts per line, the model's batches in kb's order. Each batch is tokenised
(truncated at 256 tokens, padded to its longest text) and run through one
InferenceSession with ONNX Runtime's defaults (all graph optimisations,
`THREADS` intra-op threads, default 2, spinning on), then mean-pooled and
normalised. Prints chunks/s and CPU ms per chunk of the session runs alone
and with tokenisation and pooling. Run it with the venv ./setup.sh makes
(~/.cache/kb/venv/bin/python).
"""
import json
import os
import sys
import time

os.environ["ORT_DISABLE_TELEMETRY"] = "1"  # ONNX Runtime phones home on import otherwise
import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402


def tokenizer(path, max_tokens=256):
    """kb's tokenisation: truncated at `max_tokens` (kb's 256), padded to the longest."""
    tok = Tokenizer.from_file(path)
    tok.enable_truncation(max_tokens)
    tok.enable_padding(pad_id=tok.token_to_id("[PAD]") or 0, pad_token="[PAD]")
    return tok


def long_texts(tok, n, corpus):
    """The first `n` documents of a BEIR corpus (title and text, as kb-eval
    indexes them) that fill the tokenizer's truncation length: the longest
    inputs kb gives the model."""
    limit = tok.truncation["max_length"]
    texts = []
    with open(corpus, encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            text = f"{d.get('title', '')}\n{d['text']}".strip()
            if len(tok.encode(text).ids) >= limit:
                texts.append(text)
                if len(texts) == n:
                    break
    return texts


def session(model, threads=2):
    """An InferenceSession with ONNX Runtime's defaults and `threads` intra-op threads."""
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])


def encode(sess, tok, texts):
    """The session's inputs for a batch of texts, and the attention mask."""
    enc = tok.encode_batch(texts)
    ids = np.array([e.ids for e in enc], dtype=np.int64)
    mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
    feed = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in {i.name for i in sess.get_inputs()}:
        feed["token_type_ids"] = np.zeros_like(ids)
    return feed, mask


def pool(hidden, mask):
    """Mean over the real tokens, normalised: the embeddings."""
    m = mask[:, :, None].astype(np.float32)
    v = (hidden * m).sum(1) / np.maximum(m.sum(1), 1)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def embed(sess, tok, texts):
    feed, mask = encode(sess, tok, texts)
    return pool(sess.run(None, feed)[0], mask)


def main():
    model, tok_path, batches_path = sys.argv[1:4]
    threads = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    tok = tokenizer(tok_path)
    sess = session(model, threads)
    batches = [json.loads(line) for line in open(batches_path, encoding="utf-8")]
    chunks = sum(len(b) for b in batches)
    tokens = 0
    run_wall = run_cpu = 0.0
    t0, c0 = time.perf_counter(), time.process_time()
    for texts in batches:
        feed, mask = encode(sess, tok, texts)
        tokens += int(mask.sum())
        t, c = time.perf_counter(), time.process_time()
        hidden = sess.run(None, feed)[0]
        run_wall += time.perf_counter() - t
        run_cpu += time.process_time() - c
        pool(hidden, mask)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(
        f"plain ONNX Runtime {ort.__version__} ({os.path.basename(os.path.dirname(model)) or model}, "
        f"{threads} threads, {len(batches)} batches, {chunks} chunks, {tokens / chunks:.0f} tokens per chunk): "
        f"session.run {chunks / run_wall:.1f} chunks/s, {run_cpu * 1000 / chunks:.1f} ms CPU per chunk; "
        f"with tokenising and pooling {chunks / wall:.1f} chunks/s, {cpu * 1000 / chunks:.1f} ms CPU per chunk"
    )


if __name__ == "__main__":
    main()
