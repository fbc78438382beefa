#!/usr/bin/env python3
"""PyTorch CPU peer for `horizon bench` (packages/node-runner/src/bench/peers/pytorch.ts).

Reads one JSON request on stdin, times the same work Horizon times, and writes one JSON object on
stdout. The models are twins of Horizon's GPT (packages/core/src/model/config.ts): nanoGPT names and
shapes, pre-LayerNorm blocks, causal attention, tanh GELU, untied lm_head; the critic swaps lm_head
for a one-scalar value head.

Request:  {"threads": int|null (null: torch's default), "device": "cpu"|"cuda" (default "cpu"), "timing": {"warmup": int, "reps": int, "budget_ms": float},
           "matmul": [{"M", "K", "N", "layout": "nn"|"nt"|"tn"}],
           "gpt_step": {"model": GptConfig, "batch": int} | null,
           "ppo_step": {"model": GptConfig, "batch": int} | null}
Response: {"torch": version, "threads": int, "blas": {"name", "threads"} | null, "matmul": [{"M", "K", "N", "layout", "gflops"}],
           "gpt_step": {"ms", "first_loss"} | null, "ppo_step": {"ms", "first_loss"} | null}
or, without torch: {"unavailable": "..."} (exit code 0, so the bench can print the reason).

Shape legend: B batch · T tokens · D width · H heads · V vocabulary · M, K, N matmul sizes
"""

import json
import math
import statistics
import sys
import time

# Where tensors and models live: "cpu" here; "cuda" on a GPU machine (HORIZON_TORCH_DEVICE=cuda), where
# the twin runs eager PyTorch on the same GPU Horizon's Dawn uses. Set once from the request in main().
DEVICE = "cpu"


def main() -> int:
    request = json.load(sys.stdin)
    try:
        import torch
    except ImportError as error:
        json.dump({"unavailable": f"unavailable: install python3-torch (bash scripts/setup.sh --bench); {error}"}, sys.stdout)
        return 0
    # Left at torch's default unless asked: on the 2-core bench machine Debian's torch defaults to one
    # OpenMP thread, and two (on top of OpenBLAS's own pthreads) ran the 512³ matmul at half the speed
    # and the PPO step 10× slower while other work shared the cores.
    if request.get("threads"):
        torch.set_num_threads(request["threads"])
    global DEVICE
    DEVICE = request.get("device", "cpu")
    if DEVICE == "cuda" and not torch.cuda.is_available():
        json.dump({"unavailable": "unavailable: HORIZON_TORCH_DEVICE=cuda but torch sees no CUDA device"}, sys.stdout)
        return 0
    torch.manual_seed(0)
    timing = request["timing"]
    out = {"torch": torch.__version__, "device": DEVICE if DEVICE == "cpu" else torch.cuda.get_device_name(0), "threads": torch.get_num_threads(), "blas": blas_info(), "matmul": [], "gpt_step": None, "ppo_step": None}
    for case in request.get("matmul", []):
        ms = time_matmul(torch, case, timing)
        out["matmul"].append({**case, "gflops": 2 * case["M"] * case["K"] * case["N"] / (ms / 1000) / 1e9})
    if request.get("gpt_step"):
        out["gpt_step"] = gpt_step(torch, request["gpt_step"], timing)
    if request.get("ppo_step"):
        out["ppo_step"] = ppo_step(torch, request["ppo_step"], timing)
    json.dump(out, sys.stdout)
    return 0


def blas_info():
    """Which BLAS torch's matmuls went to and with how many threads: Debian's torch calls the system
    libblas.so.3 (OpenBLAS with its own pthreads under libopenblas0-pthread), separate from torch's
    OpenMP threads. None when the library is not OpenBLAS."""
    import ctypes

    try:
        lib = ctypes.CDLL("libblas.so.3")
        lib.openblas_get_config.restype = ctypes.c_char_p
        return {"name": lib.openblas_get_config().decode().split()[1], "threads": lib.openblas_get_num_threads()}
    except (OSError, AttributeError):
        return None


def median_ms(run, timing) -> float:
    """Warm-up runs, then the median of up to `reps` timed runs (fewer once `budget_ms` is spent)."""
    sync = (lambda: __import__("torch").cuda.synchronize()) if DEVICE == "cuda" else (lambda: None)
    for _ in range(timing["warmup"]):
        run()
    sync()
    samples, spent = [], 0.0
    while len(samples) < timing["reps"] and (not samples or spent < timing["budget_ms"]):
        t0 = time.perf_counter()
        run()
        sync()
        ms = (time.perf_counter() - t0) * 1000
        samples.append(ms)
        spent += ms
    return statistics.median(samples)


def time_matmul(torch, case, timing) -> float:
    M, K, N, layout = case["M"], case["K"], case["N"], case["layout"]
    # A: [M, K] (nn, nt) or [K, M] (tn) · B: [K, N] (nn, tn) or [N, K] (nt); the transposed views go to BLAS as flags
    a = torch.randn(K, M, device=DEVICE).t() if layout == "tn" else torch.randn(M, K, device=DEVICE)
    b = torch.randn(N, K, device=DEVICE).t() if layout == "nt" else torch.randn(K, N, device=DEVICE)
    c = torch.empty(M, N, device=DEVICE)
    return median_ms(lambda: torch.mm(a, b, out=c), timing)


def build_gpt(torch, config):
    nn, F = torch.nn, torch.nn.functional
    V, T, L, H, D = config["vocabSize"], config["contextLength"], config["layers"], config["heads"], config["width"]
    hd = D // H

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = nn.LayerNorm(D, eps=1e-5)
            self.attn = nn.Module()
            self.attn.c_attn = nn.Linear(D, 3 * D)
            self.attn.c_proj = nn.Linear(D, D)
            self.ln_2 = nn.LayerNorm(D, eps=1e-5)
            self.mlp = nn.Module()
            self.mlp.c_fc = nn.Linear(D, 4 * D)
            self.mlp.c_proj = nn.Linear(4 * D, D)

        def forward(self, x, causal):
            B = x.shape[0]
            q, k, v = self.attn.c_attn(self.ln_1(x)).split(D, dim=2)
            q, k, v = (t.view(B, T, H, hd).transpose(1, 2) for t in (q, k, v))  # [B, H, T, hd]
            scores = (q @ k.transpose(-2, -1)) / math.sqrt(hd) + causal  # [B, H, T, T]
            y = (F.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(B, T, D)
            x = x + self.attn.c_proj(y)
            return x + self.mlp.c_proj(F.gelu(self.mlp.c_fc(self.ln_2(x)), approximate="tanh"))

    class Gpt(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = nn.Module()
            self.transformer.wte = nn.Embedding(V, D)
            self.transformer.wpe = nn.Embedding(T, D)
            self.transformer.h = nn.ModuleList(Block() for _ in range(L))
            self.transformer.ln_f = nn.LayerNorm(D, eps=1e-5)
            if config["head"] == "lm":
                self.lm_head = nn.Linear(D, V, bias=False)
            else:
                self.value_head = nn.Linear(D, 1)
            # A finite mask value (docs/design.md §5: never Inf).
            self.register_buffer("causal", torch.triu(torch.full((T, T), -1e9), diagonal=1))
            for name, p in self.named_parameters():
                if name.endswith("c_proj.weight"):
                    nn.init.normal_(p, std=0.02 / math.sqrt(2 * L))
                elif p.dim() == 2:
                    nn.init.normal_(p, std=0.02)

        def forward(self, tokens):
            x = self.transformer.wte(tokens) + self.transformer.wpe.weight  # [B, T, D]
            for block in self.transformer.h:
                x = block(x, self.causal)
            x = self.transformer.ln_f(x)
            return self.lm_head(x) if config["head"] == "lm" else self.value_head(x).squeeze(-1)

    return Gpt()


def gpt_step(torch, shape, timing):
    """One SFT step: forward, token-mean cross-entropy, backward, Adam (the tfjs twin's optimizer)."""
    F = torch.nn.functional
    config, B = shape["model"], shape["batch"]
    model = build_gpt(torch, {**config, "head": "lm"}).to(DEVICE)
    V, T = config["vocabSize"], config["contextLength"]
    tokens = torch.randint(0, V, (B, T), device=DEVICE)
    targets = torch.randint(0, V, (B, T), device=DEVICE)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        loss = F.cross_entropy(model(tokens).view(-1, V), targets.view(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss.item()

    first_loss = step()
    return {"ms": median_ms(step, timing), "first_loss": first_loss}


def ppo_step(torch, shape, timing):
    """One PPO minibatch update: policy and critic forward, clipped surrogate (ε = 0.2) and clipped
    value loss (ε = 0.2, coefficient 0.5), entropy bonus (0.01), token-mean over the action mask,
    backward, global grad-norm clip at 1.0, AdamW (weight decay 0.01) on both networks."""
    F = torch.nn.functional
    config, B = shape["model"], shape["batch"]
    V, T = config["vocabSize"], config["contextLength"]
    policy = build_gpt(torch, {**config, "head": "lm"}).to(DEVICE)
    critic = build_gpt(torch, {**config, "head": "value"}).to(DEVICE)
    params = list(policy.parameters()) + list(critic.parameters())
    opt = torch.optim.AdamW(params, lr=1e-4, weight_decay=0.01)
    # Rollout data for one minibatch. tokens: [B, T] · mask, old_logp, advantages, returns, old_values: [B, T-1]
    tokens = torch.randint(0, V, (B, T), device=DEVICE)
    mask = torch.zeros(B, T - 1, device=DEVICE)
    mask[:, T // 2 :] = 1.0  # the second half of each sequence is the policy's answer
    with torch.no_grad():
        old_logp = F.log_softmax(policy(tokens)[:, :-1], dim=-1).gather(-1, tokens[:, 1:, None]).squeeze(-1)
        old_values = critic(tokens)[:, :-1]
    advantages = torch.randn(B, T - 1, device=DEVICE)
    returns = old_values + torch.randn(B, T - 1, device=DEVICE) * 0.1
    count = mask.sum()

    def step():
        logp_all = F.log_softmax(policy(tokens)[:, :-1], dim=-1)  # [B, T-1, V]
        logp = logp_all.gather(-1, tokens[:, 1:, None]).squeeze(-1)
        ratio = torch.exp(logp - old_logp)
        surrogate = torch.min(ratio * advantages, torch.clamp(ratio, 0.8, 1.2) * advantages)
        entropy = -(logp_all.exp() * logp_all).sum(-1)
        values = critic(tokens)[:, :-1]
        clipped = old_values + torch.clamp(values - old_values, -0.2, 0.2)
        value_loss = 0.5 * torch.max((values - returns) ** 2, (clipped - returns) ** 2)
        loss = ((-surrogate + 0.5 * value_loss - 0.01 * entropy) * mask).sum() / count
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        return loss.item()

    first_loss = step()
    return {"ms": median_ms(step, timing), "first_loss": first_loss}


if __name__ == "__main__":
    sys.exit(main())
