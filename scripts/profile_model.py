#!/usr/bin/env python3
"""Where an embedding model's CPU goes: ONNX Runtime's own per-node
profile of one session, summed by operator, on batches of NFCorpus
abstracts cut to the same number of tokens.

    profile_model.py MODEL_DIR [TOKENS] [BATCH]

The session is built as kb builds one for ingest (all graph optimisations
but those kb-model.json leaves out, one intra-op thread, so shares are of
one core's time); TOKENS defaults to 256 (kb's longest chunks), BATCH to 32
(kb's embedding batch). Plain MatMul nodes are listed by their input
shapes, so a model's weight products and its attention products show
apart. Prints CPU per chunk over three timed runs (profiling on) and each
operator's share of the kernel time. Run it with the venv ./setup.sh
makes (~/.cache/kb/venv/bin/python).
"""
import collections
import json
import os
import sys
import tempfile
import time

from ort_reference import encode, long_texts, ort, tokenizer

CORPUS = "../shared/eval/nfcorpus/corpus.jsonl"


def main() -> int:
    if len(sys.argv) < 2 or not os.path.isfile(CORPUS):
        print(__doc__.strip(), file=sys.stderr)
        print(f"\nneeds {CORPUS} (run from the repository's root)", file=sys.stderr)
        return 1
    model_dir = sys.argv[1]
    tokens = int(sys.argv[2]) if len(sys.argv) > 2 else 256
    batch = int(sys.argv[3]) if len(sys.argv) > 3 else 32
    tok = tokenizer(os.path.join(model_dir, "tokenizer.json"), tokens)
    texts = long_texts(tok, batch, CORPUS)
    meta_path = os.path.join(model_dir, "kb-model.json")
    meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {}
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    disabled = meta.get("ort_disabled_optimizers") or []
    if disabled:
        so.add_session_config_entry("optimization.disable_specified_optimizers",
                                    ";".join(disabled))
    so.enable_profiling = True
    so.profile_file_prefix = os.path.join(tempfile.mkdtemp(), "kb-profile")
    sess = ort.InferenceSession(os.path.join(model_dir, "model.onnx"), so,
                                providers=["CPUExecutionProvider"])
    feed, _ = encode(sess, tok, texts)
    sess.run(None, feed)
    t = time.process_time()
    for _ in range(3):
        sess.run(None, feed)
    cpu = (time.process_time() - t) / 3
    trace = sess.end_profiling()
    by_op = collections.Counter()
    with open(trace, encoding="utf-8") as f:
        for e in json.load(f):
            if e.get("cat") != "Node" or not e["name"].endswith("_kernel_time"):
                continue
            op = e["args"]["op_name"]
            if op == "MatMul":
                shapes = [list(s.values())[0] for s in e["args"].get("input_type_shape", [])]
                op = f"MatMul {' x '.join(map(str, shapes))}"
            by_op[op] += e["dur"]
    os.remove(trace)
    total = sum(by_op.values())
    print(f"{os.path.basename(os.path.normpath(model_dir))}: {len(texts)} texts of {tokens} "
          f"tokens, one thread: {cpu * 1000 / len(texts):.1f} ms of CPU per text "
          f"(profiling on)")
    for op, us in by_op.most_common(12):
        print(f"  {us / total * 100:5.1f} %  {op}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
