#!/usr/bin/env python3
"""Logits of a `horizon export --format hf` folder, for the export tests (hf-gpt2.test.ts).

Two readers of the same folder:
  manual        a GPT-2 forward written from transformers' modeling_gpt2.py (GPT2Attention, GPT2MLP,
                GPT2Block, GPT2Model, GPT2LMHeadModel): Conv1D is x @ W + b with W [in, out],
                gelu_new is 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), LayerNorm eps from
                config.json, lm_head separate unless tie_word_embeddings. It reads config.json and the
                safetensors by name, with torch alone (Debian's python3-torch has no transformers).
  transformers  GPT2LMHeadModel.from_pretrained(folder), and PreTrainedTokenizerFast on --texts, when
                transformers can be imported; null otherwise.

Usage: python3 check_hf_gpt2.py FOLDER [--tokens "[[ids…], …]"] [--texts '["8+1=9<eos>"]'] [--dtype float64]
Prints one JSON object.
"""

import argparse
import json
import math
import os
import struct

import torch
from torch.nn import functional as F


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        out[name] = torch.frombuffer(bytearray(data[8 + n + begin : 8 + n + end]), dtype=torch.float32).reshape(info["shape"])
    return out


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def conv1d(x, w, b):
    return torch.addmm(b, x.reshape(-1, x.size(-1)), w).view(*x.shape[:-1], w.size(-1))


def manual_logits(folder, idx, dtype):
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    if cfg["activation_function"] != "gelu_new":
        raise ValueError(f"this forward implements gelu_new, config.json says {cfg['activation_function']}")
    w = {k: v.to(dtype) for k, v in read_safetensors(os.path.join(folder, "model.safetensors")).items()}
    eps, H, D = cfg["layer_norm_epsilon"], cfg["n_head"], cfg["n_embd"]
    B, T = idx.shape
    p = lambda n: w[f"transformer.{n}"]
    x = p("wte.weight")[idx] + p("wpe.weight")[torch.arange(T)]
    mask = torch.tril(torch.ones(T, T, dtype=torch.bool))
    for layer in range(cfg["n_layer"]):
        h = lambda n: w[f"transformer.h.{layer}.{n}"]
        a = F.layer_norm(x, (D,), h("ln_1.weight"), h("ln_1.bias"), eps)
        q, k, v = conv1d(a, h("attn.c_attn.weight"), h("attn.c_attn.bias")).split(D, dim=2)
        heads = lambda t: t.view(B, T, H, D // H).permute(0, 2, 1, 3)
        q, k, v = heads(q), heads(k), heads(v)
        att = q @ k.transpose(-1, -2)
        if cfg.get("scale_attn_weights", True):
            att = att / torch.full([], v.size(-1) ** 0.5, dtype=att.dtype)
        att = torch.where(mask, att, torch.finfo(att.dtype).min)
        y = (F.softmax(att, dim=-1) @ v).permute(0, 2, 1, 3).reshape(B, T, D)
        x = x + conv1d(y, h("attn.c_proj.weight"), h("attn.c_proj.bias"))
        m = F.layer_norm(x, (D,), h("ln_2.weight"), h("ln_2.bias"), eps)
        x = x + conv1d(gelu_new(conv1d(m, h("mlp.c_fc.weight"), h("mlp.c_fc.bias"))), h("mlp.c_proj.weight"), h("mlp.c_proj.bias"))
    x = F.layer_norm(x, (D,), p("ln_f.weight"), p("ln_f.bias"), eps)
    head = p("wte.weight") if cfg.get("tie_word_embeddings", True) else w["lm_head.weight"]
    return x @ head.T


def with_transformers(folder, idx, dtype, texts):
    try:
        import transformers
        from transformers import GPT2LMHeadModel, PreTrainedTokenizerFast
    except ImportError as error:
        return {"unavailable": f"transformers cannot be imported ({error})"}
    tokenizer = PreTrainedTokenizerFast.from_pretrained(folder)
    result = {
        "version": transformers.__version__,
        "encoded": [tokenizer(t, add_special_tokens=False)["input_ids"] for t in texts],
        "decoded": [tokenizer.decode(tokenizer(t, add_special_tokens=False)["input_ids"]) for t in texts],
    }
    if idx is not None:
        model = GPT2LMHeadModel.from_pretrained(folder).to(dtype).eval()
        with torch.no_grad():
            result["logits"] = model(idx).logits.double().tolist()
        result["tied"] = model.lm_head.weight.data_ptr() == model.transformer.wte.weight.data_ptr()
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--tokens", help="token ids as JSON; without it only the tokenizer is checked (transformers needed)")
    parser.add_argument("--texts", default="[]")
    parser.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    args = parser.parse_args()
    dtype = getattr(torch, args.dtype)
    idx = torch.tensor(json.loads(args.tokens), dtype=torch.long) if args.tokens else None
    manual = None
    if idx is not None:
        with torch.no_grad():
            manual = manual_logits(args.folder, idx, dtype).double().tolist()
    result = {"torch": torch.__version__, "manual": manual, "transformers": with_transformers(args.folder, idx, dtype, json.loads(args.texts))}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
