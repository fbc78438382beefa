#!/usr/bin/env python3
"""Loads a `horizon export --format nanogpt` folder into PyTorch as karpathy/nanoGPT's model.py GPT.

The classes below are nanoGPT's (LayerNorm with bias, CausalSelfAttention, MLP, Block, GPT) with
the three changes a Horizon policy needs, stated in export.json:
  - lm_head is untied from transformer.wte (stock nanoGPT ties them in GPT.__init__);
  - GELU is the tanh approximation, nn.GELU(approximate='tanh') (stock: exact nn.GELU());
  - the causal mask is a non-persistent buffer, so load_state_dict is strict.
forward(idx) returns logits at every position (stock nanoGPT returns only the last one when no
targets are given).

Usage:
  python3 load_nanogpt.py DIR --tokens "[[0, 1, 2]]" [--dtype float64]   prints {"logits": [...]} as JSON
  python3 load_nanogpt.py DIR --write-ckpt ckpt.pt                         writes a nanoGPT-style ckpt.pt
In your own code:  from load_nanogpt import load;  model, vocab = load(DIR)
"""

import argparse
import json
import math
import os
import struct

import torch
import torch.nn as nn
from torch.nn import functional as F


class LayerNorm(nn.Module):
    def __init__(self, ndim, bias):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

    def forward(self, x):
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, 1e-5)


class CausalSelfAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.c_attn = nn.Linear(cfg["n_embd"], 3 * cfg["n_embd"], bias=cfg["bias"])
        self.c_proj = nn.Linear(cfg["n_embd"], cfg["n_embd"], bias=cfg["bias"])
        self.n_head = cfg["n_head"]
        self.n_embd = cfg["n_embd"]
        T = cfg["block_size"]
        self.register_buffer("mask", torch.tril(torch.ones(T, T, dtype=torch.bool)).view(1, 1, T, T), persistent=False)

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(~self.mask[:, :, :T, :T], float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.c_fc = nn.Linear(cfg["n_embd"], 4 * cfg["n_embd"], bias=cfg["bias"])
        self.gelu = nn.GELU(approximate="tanh")
        self.c_proj = nn.Linear(4 * cfg["n_embd"], cfg["n_embd"], bias=cfg["bias"])

    def forward(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.ln_1 = LayerNorm(cfg["n_embd"], bias=cfg["bias"])
        self.attn = CausalSelfAttention(cfg)
        self.ln_2 = LayerNorm(cfg["n_embd"], bias=cfg["bias"])
        self.mlp = MLP(cfg)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.config = cfg
        self.transformer = nn.ModuleDict(
            dict(
                wte=nn.Embedding(cfg["vocab_size"], cfg["n_embd"]),
                wpe=nn.Embedding(cfg["block_size"], cfg["n_embd"]),
                drop=nn.Dropout(cfg["dropout"]),
                h=nn.ModuleList([Block(cfg) for _ in range(cfg["n_layer"])]),
                ln_f=LayerNorm(cfg["n_embd"], bias=cfg["bias"]),
            )
        )
        # Untied: Horizon trains lm_head and wte as two tensors (no `wte.weight = lm_head.weight`).
        self.lm_head = nn.Linear(cfg["n_embd"], cfg["vocab_size"], bias=False)

    def forward(self, idx):
        T = idx.size(1)
        if T > self.config["block_size"]:
            raise ValueError(f"{T} tokens is more than block_size {self.config['block_size']}")
        pos = torch.arange(0, T, dtype=torch.long, device=idx.device)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        return self.lm_head(self.transformer.ln_f(x))


def read_safetensors(path):
    """name -> float32 tensor; the `safetensors` package when installed, else its format read by hand."""
    try:
        from safetensors.torch import load_file

        return load_file(path)
    except ImportError:
        pass
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    start = 8 + n
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] != "F32":
            raise ValueError(f"{path}: tensor {name} is {info['dtype']}; this reader reads F32")
        begin, end = info["data_offsets"]
        out[name] = torch.frombuffer(bytearray(data[start + begin : start + end]), dtype=torch.float32).reshape(info["shape"])
    return out


def load(folder, dtype=torch.float32):
    """The exported model (eval mode) and vocabulary.json as a dict."""
    with open(os.path.join(folder, "model_args.json")) as f:
        cfg = json.load(f)
    with open(os.path.join(folder, "vocabulary.json")) as f:
        vocab = json.load(f)
    model = GPT(cfg)
    model.load_state_dict(read_safetensors(os.path.join(folder, "model.safetensors")), strict=True)
    return model.to(dtype).eval(), vocab


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder")
    parser.add_argument("--tokens", help='token ids as JSON, [[id, …], …] (equal lengths)')
    parser.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    parser.add_argument("--write-ckpt", metavar="PATH", help="write a nanoGPT-style ckpt.pt (model_args, model, iter_num, best_val_loss, config)")
    args = parser.parse_args()
    model, vocab = load(args.folder, getattr(torch, args.dtype))
    if args.write_ckpt:
        with open(os.path.join(args.folder, "export.json")) as f:
            provenance = json.load(f)
        torch.save(
            {
                "model": model.state_dict(),
                "model_args": model.config,
                "iter_num": provenance["step"],
                "best_val_loss": float("nan"),
                "config": {"horizon": provenance, "vocabulary": vocab},
            },
            args.write_ckpt,
        )
    if args.tokens:
        idx = torch.tensor(json.loads(args.tokens), dtype=torch.long)
        with torch.no_grad():
            logits = model(idx)
        print(json.dumps({"logits": logits.double().tolist(), "dtype": args.dtype, "torch": torch.__version__}))


if __name__ == "__main__":
    main()
