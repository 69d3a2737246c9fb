#!/usr/bin/env python3
"""How far the int8 model's embeddings lie from fp32's.

    int8_accuracy.py [N] [CORPUS.jsonl]

Takes the first N (default 320) NFCorpus documents of at least 256 tokens
(title and text, as kb-eval indexes them), truncated at 256 tokens: the
longest inputs kb gives the model, where int8 drifts most. fp32 embeds each
alone (the reference); int8 embeds each alone and in batches of 32, as
`kb add` does. Prints the min and mean cosine to fp32 of both. Run it with
the venv ./setup.sh makes and the model directories exported:

    eval "$(python3 scripts/prepare_model.py)"
    KB_MODEL_DIR=$KB_MODEL_DIR KB_MODEL_DIR_INT8=$KB_MODEL_DIR_INT8 \
        ~/.cache/kb/venv/bin/python scripts/int8_accuracy.py
"""
import os
import sys

from ort_reference import embed, long_texts, session, tokenizer


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 320
    corpus = sys.argv[2] if len(sys.argv) > 2 else "../shared/eval/nfcorpus/corpus.jsonl"
    fp32_dir, int8_dir = os.environ["KB_MODEL_DIR"], os.environ["KB_MODEL_DIR_INT8"]
    tok = tokenizer(os.path.join(fp32_dir, "tokenizer.json"))
    texts = long_texts(tok, n, corpus)
    fp32 = session(os.path.join(fp32_dir, "model.onnx"))
    int8 = session(os.path.join(int8_dir, "model.onnx"))
    ref = [embed(fp32, tok, [t])[0] for t in texts]
    alone = [embed(int8, tok, [t])[0] for t in texts]
    batched = []
    for i in range(0, len(texts), 32):
        batched.extend(embed(int8, tok, texts[i:i + 32]))
    for name, vecs in (("alone", alone), ("in batches of 32", batched)):
        cos = [float(a @ b) for a, b in zip(ref, vecs)]
        print(f"int8 {name}: cosine to fp32 over {len(texts)} texts of 256 tokens: "
              f"min {min(cos):.4f}, mean {sum(cos) / len(cos):.4f}")


if __name__ == "__main__":
    main()
