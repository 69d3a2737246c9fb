"""The rewrites that make quantize_dynamic's int8 graph kb's (version 6 of
scripts/prepare_model.py's all-MiniLM-L6-v2-int8, and the multilingual
model quantised the same way), each in place on an ONNX file:

  per_row_activations  each token's activations quantised on their own
  weight_remainders    a second 7-bit code for the named projections
  fused_attention      the attention as ONNX Runtime's MultiHeadAttention
  declare_shapes       every value's shape declared (session start)

They read and write ONNX graphs only; which rewrites run, in what order,
and the checks of the vectors they give are prepare_model.py's `quantize`.
Run in the venv prepare_model.py makes (onnx, onnxruntime, numpy).
"""
from __future__ import annotations

from pathlib import Path


class RewriteError(Exception):
    """A graph is not the one a rewrite expects."""


def declare_shapes(path: Path) -> None:
    """Declares the shape of every value the graph computes (in place), with
    `batch`, `sequence` and `rows` (batch x sequence) where they vary.

    The shapes are read off two runs of the graph itself, on inputs of 5 x 13
    and 7 x 17 tokens: a dimension equal in both is fixed, one that follows
    the batch, the sequence or their product is named after it. No graph
    rule is guessed, so the same works for any encoder."""
    import copy
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import helper

    model = onnx.load(str(path))
    graph_outputs = {o.name for o in model.graph.output}
    computed = [o for n in model.graph.node for o in n.output if o and o not in graph_outputs]

    def run(batch: int, seq: int) -> dict:
        probe = copy.deepcopy(model)
        for name in computed:
            probe.graph.output.append(helper.make_value_info(name, onnx.TypeProto()))
        so = ort.SessionOptions()
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        so.log_severity_level = 3
        sess = ort.InferenceSession(probe.SerializeToString(), so, providers=["CPUExecutionProvider"])
        ids = np.full((batch, seq), 1000, dtype=np.int64)
        feed = {i.name: ids if i.name == "input_ids" else np.ones_like(ids)
                if i.name == "attention_mask" else np.zeros_like(ids) for i in sess.get_inputs()}
        return dict(zip(computed, sess.run(computed, feed)))

    small, large = run(5, 13), run(7, 17)
    named = {(5, 7): "batch", (13, 17): "sequence", (65, 119): "rows"}
    del model.graph.value_info[:]
    for name in computed:
        a, b = small[name], large[name]
        if a.ndim != b.ndim:
            continue
        dims = [int(x) if x == y else named.get((x, y)) for x, y in zip(a.shape, b.shape)]
        model.graph.value_info.append(
            helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(a.dtype), dims))
    onnx.save(model, str(path))


def per_row_activations(path: Path) -> None:
    """Rewrites quantize_dynamic's graph (in place) so each linear layer's input
    is quantised per row instead of per tensor.

    quantize_dynamic puts a DynamicQuantizeLinear before each group of weight
    MatMuls: one uint8 scale and zero point for the whole input tensor, that
    is the whole padded batch, so a text's vector depends on its batch. Here
    every row x (one token's vector, K values) gets its own:

        s = (max(x, 0) - min(x, 0)) / 255      zp = round(-min(x, 0) / s)
        q = QuantizeLinear(x, s, zp)           (per row: axis 0 of [M, K])

    and, with the int8 weight codes W (symmetric, per-column scale ws, bias b),

        y = s * (ws * (q @ W)) + [-(s * zp) | 1] @ [ws * colsum(W) ; b]

    the first term by ONNX Runtime's MatMulIntegerToFloat (its integer
    kernels, a scalar A scale of 1), the zero-point correction and the bias
    by one rank-2 Gemm. Every row is computed from that row alone, so a batch
    changes nothing (ONNX Runtime's MatMulInteger takes no per-row zero
    point, and MatMulIntegerToFloat's per-row A scale path gave wrong
    results for these weights in 1.31: neither is used that way)."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper as nh

    model = onnx.load(str(path))
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    consumers = consumers_of(g)
    producer = {o: n for n in g.node for o in n.output}
    added_inits: list = []

    def const(name: str, arr) -> str:
        added_inits.append(nh.from_array(np.asarray(arr), name))
        return name

    const("rowq_zero", np.array(0.0, np.float32))
    const("rowq_255", np.array(255.0, np.float32))
    const("rowq_eps", np.array(1e-12, np.float32))
    const("rowq_one", np.array(1.0, np.float32))
    const("rowq_col", np.array([-1, 1], np.int64))
    const("rowq_11", np.array([1, 1], np.int64))
    const("rowq_s0", np.array([0], np.int64))
    const("rowq_s2", np.array([2], np.int64))
    added: list = []
    count = [0]

    def node(op: str, inputs: list, outputs: list | None = None, domain: str | None = None, **attrs) -> str:
        count[0] += 1
        name = f"rowq_{op}_{count[0]}"
        if domain:
            attrs["domain"] = domain
        added.append(helper.make_node(op, inputs, outputs or [name], name=name, **attrs))
        return (outputs or [name])[0]

    quantised: dict = {}
    replaced: set = set()
    for n in g.node:
        if n.op_type != "MatMulInteger":
            continue
        a, w, _a_zp, _w_zp = n.input
        x = producer[a].input[0]  # the DynamicQuantizeLinear's float input
        codes = nh.to_array(inits[w])
        k, n_out = codes.shape
        if x not in quantised:
            x2 = node("Reshape", [x, const(f"{x}_rowq_2d", np.array([-1, k], np.int64))])
            hi = node("Max", [node("ReduceMax", [x2], axes=[1], keepdims=0), "rowq_zero"])
            lo = node("Min", [node("ReduceMin", [x2], axes=[1], keepdims=0), "rowq_zero"])
            s = node("Max", [node("Div", [node("Sub", [hi, lo]), "rowq_255"]), "rowq_eps"])
            zp = node("Round", [node("Clip", [node("Div", [node("Neg", [lo]), s]), "rowq_zero", "rowq_255"])])
            q = node("QuantizeLinear", [x2, s, node("Cast", [zp], to=TensorProto.UINT8)], axis=0)
            s_col = node("Reshape", [s, "rowq_col"])
            neg_szp = node("Neg", [node("Mul", [s_col, node("Reshape", [zp, "rowq_col"])])])
            ones = node("Expand", [node("Reshape", ["rowq_one", "rowq_11"]), node("Shape", [neg_szp])])
            lhs = node("Concat", [neg_szp, ones], axis=1)
            batch_seq = node("Slice", [node("Shape", [x]), "rowq_s0", "rowq_s2"])
            quantised[x] = (q, s_col, lhs, batch_seq)
        q, s_col, lhs, batch_seq = quantised[x]
        # quantize_dynamic's tail: Cast -> Mul(x_scale * w_scale) -> Add(bias).
        cast = consumers[n.output[0]][0]
        mul = consumers[cast.output[0]][0]
        add = consumers[mul.output[0]][0]
        if (cast.op_type, mul.op_type, add.op_type) != ("Cast", "Mul", "Add"):
            raise RewriteError(f"unexpected nodes after {n.name}: {cast.op_type}, {mul.op_type}, {add.op_type}")
        scales = producer[mul.input[1]]
        w_scale = scales.input[1]
        bias = next(i for i in add.input if i != mul.output[0])
        ws = nh.to_array(inits[w_scale]).astype(np.float32)
        b = nh.to_array(inits[bias]).astype(np.float32)
        colsum = codes.astype(np.int64).sum(0).astype(np.float32)
        replaced.update({id(n), id(cast), id(mul), id(add), id(scales)})
        y = node("MatMulIntegerToFloat", [q, w, "rowq_one", w_scale], domain="com.microsoft")
        y = node("Mul", [y, s_col])
        y = node("Gemm", [lhs, const(f"{w}_rowq_rank2", np.stack([ws * colsum, b])), y])
        shape = node("Concat", [batch_seq, const(f"{w}_rowq_n", np.array([n_out], np.int64))], axis=0)
        node("Reshape", [y, shape], outputs=[add.output[0]])
    if not quantised:
        raise RewriteError(f"{path}: no quantised MatMul to rewrite")
    kept = [n for n in g.node if id(n) not in replaced and n.op_type != "DynamicQuantizeLinear"]
    save_rewritten(model, path, kept + added, added_inits, "per-row rewrite")


def save_rewritten(model, path: Path, nodes: list, added_inits: list, rewrite: str) -> None:
    """Saves `model` (in place at `path`) with `nodes` in topological order
    (each where its inputs exist), `added_inits` among its initializers and
    the ones no node reads any more dropped."""
    from onnx import helper
    g = model.graph
    ready = {i.name for i in g.input} | {i.name for i in g.initializer} | {i.name for i in added_inits}
    ordered, pending = [], nodes
    while pending:
        rest = []
        for n in pending:
            if all(i == "" or i in ready for i in n.input):
                ordered.append(n)
                ready.update(n.output)
            else:
                rest.append(n)
        if len(rest) == len(pending):
            raise RewriteError(f"{rewrite}: the graph has a cycle or a missing input")
        pending = rest
    del g.node[:]
    g.node.extend(ordered)
    g.initializer.extend(added_inits)
    used = {i for n in g.node for i in n.input}
    kept_inits = [i for i in g.initializer if i.name in used]
    del g.initializer[:]
    g.initializer.extend(kept_inits)
    del g.value_info[:]
    if not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    import onnx
    onnx.save(model, str(path))


def consumers_of(graph) -> dict:
    """Each value's name -> the nodes that read it."""
    import collections
    out = collections.defaultdict(list)
    for n in graph.node:
        for i in n.input:
            out[i].append(n)
    return out


def weight_remainders(path: Path, fp32_path: Path, kinds: list[str]) -> None:
    """Gives the weights of the projections of `kinds` (numpy_bert.LINEAR_TAGS' names) a
    second code (in place): with W the fp32 weight and ws * codes its 7-bit
    quantisation (per column),

        rest = round((W - ws * codes) / ws_rest)     ws_rest = max|W - ws * codes| / 64

    in the same 7-bit range, so AVX2's pair sums cannot saturate on them
    either. The codes and the remainder's are one weight [K, 2N] (scales
    [ws | ws_rest]) under per_row_activations' MatMulIntegerToFloat, its
    zero-point correction widened with them (and no bias on the second
    half); the two halves of the product are added after it. One integer
    product of twice the columns, from the same uint8 rows."""
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper as nh

    fp32 = {i.name: i for i in onnx.load(str(fp32_path)).graph.initializer}
    model = onnx.load(str(path))
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    consumers = consumers_of(g)
    added, added_inits = [], []
    for n in g.node:
        if n.op_type != "MatMulIntegerToFloat" or n.input[1].split(".")[1] not in kinds:
            continue
        w, w_scale = n.input[1], n.input[3]
        codes = nh.to_array(inits[w]).astype(np.int64)
        ws = nh.to_array(inits[w_scale]).astype(np.float32)
        exact = nh.to_array(fp32[w.removesuffix("_quantized")]).astype(np.float64)
        left = exact - codes * ws.astype(np.float64)
        ws_rest = np.maximum(np.abs(left).max(0) / 64.0, 1e-12).astype(np.float32)
        rest = np.clip(np.round(left / ws_rest), -64, 64).astype(np.int64)
        mul = consumers[n.output[0]][0]
        gemm = consumers[mul.output[0]][0]
        reshape = consumers[gemm.output[0]][0]
        if (mul.op_type, gemm.op_type, reshape.op_type) != ("Mul", "Gemm", "Reshape"):
            raise RewriteError(f"unexpected nodes after {n.name}: {mul.op_type}, {gemm.op_type}, "
                               f"{reshape.op_type}")
        rank2 = nh.to_array(inits[gemm.input[1]])
        n_out = codes.shape[1]
        rest_rank2 = np.stack([ws_rest * rest.sum(0).astype(np.float32), np.zeros(n_out, np.float32)])
        inits[w].CopyFrom(nh.from_array(np.concatenate([codes, rest], 1).astype(np.int8), w))
        inits[w_scale].CopyFrom(nh.from_array(np.concatenate([ws, ws_rest]), w_scale))
        inits[gemm.input[1]].CopyFrom(
            nh.from_array(np.concatenate([rank2, rest_rank2], 1).astype(np.float32), gemm.input[1]))
        both = gemm.output[0]
        bounds = [f"{w}_rest_{b}" for b in ("axis", "start", "middle", "end")]
        for name, value in zip(bounds, (1, 0, n_out, 2 * n_out)):
            added_inits.append(nh.from_array(np.array([value], np.int64), name))
        axis, start, middle, end = bounds
        added.append(helper.make_node("Slice", [both, start, middle, axis], [f"{w}_y"], name=f"{w}_y"))
        added.append(helper.make_node("Slice", [both, middle, end, axis], [f"{w}_yrest"],
                                      name=f"{w}_yrest"))
        added.append(helper.make_node("Add", [f"{w}_y", f"{w}_yrest"], [f"{w}_ysum"], name=f"{w}_ysum"))
        reshape.input[0] = f"{w}_ysum"
    if not added:
        raise RewriteError(f"{path}: no quantised projection of {kinds} to give a second code")
    save_rewritten(model, path, list(g.node) + added, added_inits, "weight remainders")


def fused_attention(path: Path) -> None:
    """Replaces each layer's attention (in place), prepare_model.build_onnx's heads split
    by Reshape and Transpose, scaled scores plus the padding mask, Softmax,
    the product with the values and the heads merged again, by ONNX
    Runtime's MultiHeadAttention on the projections as they are, with the
    attention mask as its key padding mask. The same arithmetic: a padded
    key gets no weight either way, so a text's vector is still the same in
    any batch (verify_int8 checks it bit for bit)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper as nh

    model = onnx.load(str(path))
    g = model.graph
    producer = {o: n for n in g.node for o in n.output}
    consumers = consumers_of(g)
    heads_shape = next(i for i in g.initializer if i.name == "const_heads_shape")
    heads = int(nh.to_array(heads_shape)[2])
    replaced, added = set(), []
    mask = helper.make_node("Cast", ["attention_mask"], ["attention_key_mask"], to=TensorProto.INT32,
                            name="attention_key_mask")
    for softmax in [n for n in g.node if n.op_type == "Softmax"]:
        masked = producer[softmax.input[0]]
        scaled = producer[masked.input[0]]
        scores = producer[scaled.input[0]]
        q_heads, k_heads = producer[scores.input[0]], producer[scores.input[1]]
        context = consumers[softmax.output[0]][0]
        v_heads = producer[context.input[1]]
        merged = consumers[context.output[0]][0]
        merged_shape = consumers[merged.output[0]][0]
        split = [producer[t.input[0]] for t in (q_heads, k_heads, v_heads)]
        chain = [masked, scaled, scores, q_heads, k_heads, softmax, context, v_heads, merged,
                 merged_shape, *split]
        expected = ["Add", "Mul", "MatMul", "Transpose", "Transpose", "Softmax", "MatMul", "Transpose",
                    "Transpose", "Reshape", "Reshape", "Reshape", "Reshape"]
        if [n.op_type for n in chain] != expected:
            raise RewriteError(f"attention around {softmax.name} is not build_onnx's: "
                               f"{[n.op_type for n in chain]}")
        replaced.update(id(n) for n in chain)
        added.append(helper.make_node(
            "MultiHeadAttention", [s.input[0] for s in split] + ["", mask.output[0]],
            [merged_shape.output[0]], name=f"attention_{softmax.name}", domain="com.microsoft",
            num_heads=heads))
    if not added:
        raise RewriteError(f"{path}: no attention to fuse")
    kept = [n for n in g.node if id(n) not in replaced]
    save_rewritten(model, path, kept + [mask] + added, [], "fused attention")
