"""PyTorch twin of Horizon's GPT: writes the golden fixture tests/fixtures/gpt-golden-v1.json.

The fixture is the "debug state" of llm.c's train_gpt2.py: for a tiny GPT in float64 it holds the
config, inputs, weights (flat, in the layout of packages/core/src/model/parameters.ts), logits,
loss, every parameter gradient and the losses of the first 10 torch.optim.AdamW steps; plus a
value-head case (values, MSE loss, gradients). tests/golden/gpt-golden.test.ts checks the float64
reference GPT against it, and the GPU model reuses it through compareToGolden().

Regenerate (one command, from the repository root, about 2 s):

    pnpm golden        # runs ${PYTHON:-python3} tools/golden/gpt_golden.py; needs torch ≥ 1.12

Where the first python3 on PATH lacks torch (Debian's python3-torch is /usr/bin/python3):
PYTHON=/usr/bin/python3 pnpm golden. The output is deterministic (fixed seeds, float64, one
thread): regenerating with the same torch gives a byte-identical file, so CI can check staleness
with `pnpm golden && git diff --exit-code tests/fixtures`. Bump FIXTURE_VERSION (and with it the
file name and GOLDEN_VERSION in packages/core/src/model/reference/golden.ts) when the format changes.

The model is written out here from the architecture in packages/core/src/model/config.ts (nanoGPT's
names and shapes); the weights are random, not the seeded init, so LayerNorm gains, biases and the
attention pattern are all non-trivial. They are rounded to float32 so a float32 GPU model can load
exactly the same weights.
"""

import json
import math
import os
import sys

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:
    sys.exit(f"{sys.executable} has no PyTorch: run with PYTHON=/path/to/python3-with-torch pnpm golden "
             "(on Debian: apt install python3-torch, then PYTHON=/usr/bin/python3)")

FIXTURE_VERSION = 1
ALIGNMENT = 64  # PARAMETER_ALIGNMENT in parameters.ts
LAYER_NORM_EPS = 1e-5  # LAYER_NORM_EPS in config.ts

CONFIG = dict(vocabSize=11, contextLength=10, layers=2, heads=2, width=8)
B, T = 3, 8  # T < contextLength on purpose: the unused wpe rows must get zero gradient
ADAMW = dict(lr=1e-2, beta1=0.9, beta2=0.95, eps=1e-8, weightDecay=0.1)
ADAMW_STEPS = 10


class CausalSelfAttention(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)

    def forward(self, x):
        b, t, d = x.shape
        hd = d // self.h
        q, k, v = self.c_attn(x).split(d, dim=2)
        q, k, v = (z.view(b, t, self.h, hd).transpose(1, 2) for z in (q, k, v))  # [B, H, T, hd]
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        causal = torch.tril(torch.ones(t, t, dtype=torch.bool))
        att = F.softmax(att.masked_fill(~causal, float("-inf")), dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, d)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.c_fc = nn.Linear(d, 4 * d)
        self.c_proj = nn.Linear(4 * d, d)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d, eps=LAYER_NORM_EPS)
        self.attn = CausalSelfAttention(d, h)
        self.ln_2 = nn.LayerNorm(d, eps=LAYER_NORM_EPS)
        self.mlp = MLP(d)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, cfg, head):
        super().__init__()
        d = cfg["width"]
        self.head = head
        self.transformer = nn.ModuleDict(
            dict(
                wte=nn.Embedding(cfg["vocabSize"], d),
                wpe=nn.Embedding(cfg["contextLength"], d),
                h=nn.ModuleList(Block(d, cfg["heads"]) for _ in range(cfg["layers"])),
                ln_f=nn.LayerNorm(d, eps=LAYER_NORM_EPS),
            )
        )
        if head == "lm":
            self.lm_head = nn.Linear(d, cfg["vocabSize"], bias=False)
        else:
            self.value_head = nn.Linear(d, 1)

    def forward(self, idx):
        t = idx.shape[1]
        x = self.transformer.wte(idx) + self.transformer.wpe(torch.arange(t))
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        return self.lm_head(x) if self.head == "lm" else self.value_head(x).squeeze(-1)


def parameter_names(cfg, head):
    """The order of parameterSpecs() in parameters.ts."""
    names = ["transformer.wte.weight", "transformer.wpe.weight"]
    for l in range(cfg["layers"]):
        p = f"transformer.h.{l}"
        for s in ("ln_1.weight", "ln_1.bias", "attn.c_attn.weight", "attn.c_attn.bias", "attn.c_proj.weight", "attn.c_proj.bias",
                  "ln_2.weight", "ln_2.bias", "mlp.c_fc.weight", "mlp.c_fc.bias", "mlp.c_proj.weight", "mlp.c_proj.bias"):
            names.append(f"{p}.{s}")
    names += ["transformer.ln_f.weight", "transformer.ln_f.bias"]
    names += ["lm_head.weight"] if head == "lm" else ["value_head.weight", "value_head.bias"]
    return names


def layout(model, cfg, head):
    params = dict(model.named_parameters())
    names = parameter_names(cfg, head)
    assert sorted(names) == sorted(params), "parameter names drifted from parameters.ts"
    entries, offset = [], 0
    for name in names:
        shape = list(params[name].shape)
        entries.append(dict(name=name, shape=shape, offset=offset))
        offset += -(-params[name].numel() // ALIGNMENT) * ALIGNMENT
    return entries, offset


def flatten(tensors, entries, total):
    flat = torch.zeros(total)
    for e in entries:
        t = tensors[e["name"]].reshape(-1)
        flat[e["offset"]: e["offset"] + t.numel()] = t
    return flat


def randomize(model, gen):
    """Random float32-representable weights with a scale that keeps every nonlinearity busy."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("ln_1.weight") or name.endswith("ln_2.weight") or name.endswith("ln_f.weight"):
                value = 1 + 0.2 * torch.randn(p.shape, generator=gen)
            elif p.dim() == 1:
                value = 0.2 * torch.randn(p.shape, generator=gen)
            elif "wte" in name or "wpe" in name:
                value = 0.5 * torch.randn(p.shape, generator=gen)
            else:  # Linear [out, in]: std 1/√in keeps activations O(1)
                value = torch.randn(p.shape, generator=gen) / math.sqrt(p.shape[1])
            p.copy_(value.float().double())


def masked_loss(model, head, tokens, targets, mask):
    out = model(tokens)
    if head == "lm":
        per = F.cross_entropy(out.reshape(-1, out.shape[-1]), targets.reshape(-1), reduction="none").view(B, T)
    else:
        per = (out - targets) ** 2
    return out, (per * mask).sum() / mask.sum()


def build_case(head, seed):
    gen = torch.Generator().manual_seed(seed)
    model = GPT(CONFIG, head)
    randomize(model, gen)
    entries, total = layout(model, CONFIG, head)
    tokens = torch.randint(0, CONFIG["vocabSize"], (B, T), generator=gen)
    if head == "lm":
        targets = torch.randint(0, CONFIG["vocabSize"], (B, T), generator=gen)
    else:
        targets = torch.randn((B, T), generator=gen).float().double()
    # 1 = position counts. Row 0 skips its prompt, row 2 its tail (padding), row 1 counts everywhere.
    mask = torch.ones(B, T)
    mask[0, :3] = 0
    mask[2, 5:] = 0

    weights = flatten(dict(model.named_parameters()), entries, total)
    out, loss = masked_loss(model, head, tokens, targets, mask)
    loss.backward()
    grads = flatten({n: p.grad for n, p in model.named_parameters()}, entries, total)
    case = dict(
        config=dict(CONFIG, head=head),
        B=B,
        T=T,
        layout=entries,
        tokens=tokens.reshape(-1).tolist(),
        targets=targets.reshape(-1).tolist(),
        lossMask=mask.reshape(-1).tolist(),
        weights=weights.tolist(),
        output=out.detach().reshape(-1).tolist(),
        loss=loss.item(),
        grads=grads.tolist(),
    )
    if head == "lm":
        case["adamw"] = dict(ADAMW, steps=ADAMW_STEPS, losses=adamw_losses(model, head, tokens, targets, mask))
    return case


def adamw_losses(model, head, tokens, targets, mask):
    """Loss before each of the first ADAMW_STEPS updates (losses[0] is the fixture's loss)."""
    decay = [p for p in model.parameters() if p.dim() >= 2]  # nanoGPT's configure_optimizers
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW(
        [dict(params=decay, weight_decay=ADAMW["weightDecay"]), dict(params=no_decay, weight_decay=0.0)],
        lr=ADAMW["lr"], betas=(ADAMW["beta1"], ADAMW["beta2"]), eps=ADAMW["eps"], foreach=False,
    )
    losses = []
    for _ in range(ADAMW_STEPS):
        opt.zero_grad(set_to_none=True)
        _, loss = masked_loss(model, head, tokens, targets, mask)
        losses.append(loss.item())
        loss.backward()
        opt.step()
    return losses


def main():
    torch.set_default_dtype(torch.float64)
    torch.set_num_threads(1)  # one reduction order, so the file is reproducible byte for byte
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.path.join(root, "tests", "fixtures", f"gpt-golden-v{FIXTURE_VERSION}.json")
    fixture = dict(
        format="horizon-gpt-golden",
        version=FIXTURE_VERSION,
        generator="tools/golden/gpt_golden.py",
        torch=torch.__version__,
        lm=build_case("lm", seed=1234),
        value=build_case("value", seed=5678),
    )
    # One field per line keeps diffs readable; floats are written shortest-round-trip (exact f64).
    lines = []
    for key, value in fixture.items():
        if isinstance(value, dict):
            inner = [f'    {json.dumps(k)}: {json.dumps(v, separators=(",", ":"))}' for k, v in value.items()]
            lines.append(f"  {json.dumps(key)}: {{\n" + ",\n".join(inner) + "\n  }")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("{\n" + ",\n".join(lines) + "\n}\n")
    print(f"wrote {os.path.relpath(path, root)} ({os.path.getsize(path)} bytes); lm loss {fixture['lm']['loss']:.6f}, "
          f"value loss {fixture['value']['loss']:.6f}, AdamW losses {fixture['lm']['adamw']['losses'][0]:.4f} → "
          f"{fixture['lm']['adamw']['losses'][-1]:.4f}", file=sys.stderr)


if __name__ == "__main__":
    main()
