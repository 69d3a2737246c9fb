"""kb's independent reference for a BERT encoder: a float64 forward pass in
NumPy straight from the safetensors weights, and the same pass emulating
the int8 graph (scripts/int8_graph.py) from the codes stored in it.

prepare_model.py and prepare_multilingual.py check every graph they build
against it before any vector is trusted: it shares no code with ONNX
Runtime or the graph builder. Run in the venv prepare_model.py makes.
"""
from __future__ import annotations

from pathlib import Path

# The linear layers the graph builder names, by their safetensors prefix.
LINEAR_TAGS = {"attention.self.query": "q", "attention.self.key": "k", "attention.self.value": "v",
               "attention.output.dense": "attn_out", "intermediate.dense": "ffn_in",
               "output.dense": "ffn_out"}


def quantized_weights(q_path: Path, two_codes: list[str]) -> dict:
    """The int8 graph's quantised weights: safetensors prefix -> [(codes, zero
    points, scales)], the codes and, for the projections of `two_codes` (their
    LINEAR_TAGS names), the remainder's."""
    import numpy as np
    import onnx
    from onnx import numpy_helper
    inits = {i.name: numpy_helper.to_array(i) for i in onnx.load(str(q_path)).graph.initializer}
    out = {}
    for name in inits:
        if not name.endswith(".weight_t_quantized"):
            continue
        tag = name[: -len(".weight_t_quantized")]  # e.g. layer3.ffn_in
        layer, kind = tag.split(".", 1)
        prefix = next(p for p, t in LINEAR_TAGS.items() if t == kind)
        base = tag + ".weight_t"
        codes, scales = inits[base + "_quantized"], inits[base + "_scale"]
        # Symmetric weights: the per-row graph drops their zero points (all 0).
        zero = inits.get(base + "_zero_point", np.zeros(codes.shape[1], dtype=codes.dtype))
        # A weight with two codes (weight_remainders) holds them side by side.
        halves = 2 if kind in two_codes else 1
        n_out = codes.shape[1] // halves
        out[f"encoder.layer.{layer[5:]}.{prefix}"] = [
            (codes[:, h * n_out:(h + 1) * n_out], zero[h * n_out:(h + 1) * n_out],
             scales[h * n_out:(h + 1) * n_out]) for h in range(halves)]
    if len(out) == 0:
        raise ValueError(f"{q_path}: no quantised weights found")
    return out


class NumpyBert:
    """Independent float64 BERT forward pass straight from the safetensors weights.

    With `quant` (from quantized_weights) it emulates the quantised graph
    instead: each linear layer's input is quantised to uint8 row by row (one
    scale and zero point per token, as per_row_activations builds it),
    multiplied in integers by the stored weight codes, and scaled back.
    """

    def __init__(self, cfg: dict, w: dict, quant: dict | None = None):
        import numpy as np
        self.np = np
        self.cfg = cfg
        self.quant = quant or {}
        self.w = {k: v.astype(np.float64) for k, v in w.items() if v.dtype.kind == "f"}
        self.nh = int(cfg["num_attention_heads"])
        self.L = int(cfg["num_hidden_layers"])
        self.eps = float(cfg.get("layer_norm_eps", 1e-12))
        import math
        self._erf = np.frompyfunc(math.erf, 1, 1)
        self._memo: dict = {}

    def _ln(self, x, prefix):
        np = self.np
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + self.eps) * self.w[prefix + ".weight"] + self.w[prefix + ".bias"]

    def _lin(self, x, prefix):
        if prefix in self.quant:
            return self._qlin(x, prefix)
        return x @ self.w[prefix + ".weight"].T + self.w[prefix + ".bias"]

    def _qlin(self, x, prefix):
        np = self.np
        x32 = x.astype(np.float32)
        lo = np.minimum(x32.min(-1, keepdims=True), np.float32(0))
        hi = np.maximum(x32.max(-1, keepdims=True), np.float32(0))
        scale = np.maximum((hi - lo) / np.float32(255), np.float32(1e-12))
        zp = np.round(np.clip(-lo / scale, 0, 255))
        xq = np.clip(np.round(x32 / scale) + zp, 0, 255)
        y = self.w[prefix + ".bias"]
        for codes, w_zp, w_scale in self.quant[prefix]:
            acc = (xq - zp) @ (codes.astype(np.float64) - w_zp.astype(np.float64))
            y = y + acc * (scale.astype(np.float64) * w_scale.astype(np.float64))
        return y

    def _gelu(self, x):
        np = self.np
        return 0.5 * x * (1.0 + self._erf(x / np.sqrt(2.0)).astype(np.float64))

    def forward(self, ids, mask, tt):
        """ids/mask/tt: int arrays [B, S] -> last_hidden_state float64 [B, S, H] (memoised)."""
        key = (ids.shape, ids.tobytes(), mask.tobytes(), tt.tobytes())
        if key not in self._memo:
            self._memo[key] = self._forward(ids, mask, tt)
        return self._memo[key]

    def _forward(self, ids, mask, tt):
        np = self.np
        w = self.w
        B, S = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.token_type_embeddings.weight"][tt]
             + w["embeddings.position_embeddings.weight"][np.arange(S)][None])
        x = self._ln(x, "embeddings.LayerNorm")
        ext = (1.0 - mask.astype(np.float64))[:, None, None, :] * np.finfo(np.float32).min
        H = x.shape[-1]
        hd = H // self.nh
        for i in range(self.L):
            p = f"encoder.layer.{i}"
            def heads(t):
                return t.reshape(B, S, self.nh, hd).transpose(0, 2, 1, 3)
            q = heads(self._lin(x, p + ".attention.self.query"))
            k = heads(self._lin(x, p + ".attention.self.key"))
            v = heads(self._lin(x, p + ".attention.self.value"))
            s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd) + ext
            s = s - s.max(-1, keepdims=True)
            e = np.exp(s)
            a = e / e.sum(-1, keepdims=True)
            ctx = (a @ v).transpose(0, 2, 1, 3).reshape(B, S, H)
            x = self._ln(self._lin(ctx, p + ".attention.output.dense") + x, p + ".attention.output.LayerNorm")
            h = self._gelu(self._lin(x, p + ".intermediate.dense"))
            x = self._ln(self._lin(h, p + ".output.dense") + x, p + ".output.LayerNorm")
        return x


def mean_pool_normalize(hidden, mask):
    import numpy as np
    m = mask.astype(np.float64)[..., None]
    summed = (hidden.astype(np.float64) * m).sum(1)
    counts = np.clip(m.sum(1), 1e-9, None)
    emb = summed / counts
    return emb / np.clip(np.linalg.norm(emb, axis=-1, keepdims=True), 1e-12, None)
