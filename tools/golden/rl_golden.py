"""PyTorch golden fixtures for Horizon's RL kernels: writes tests/fixtures/rl-golden-v1.json.

Every expected value here is computed by PyTorch from the formulas the frameworks use (verl, slime,
TRL), with autograd for the gradients, independently of the TypeScript references and the WGSL:
  gae       skip-observation token-level GAE (observation rewards carried to the previous action,
            values on observations never read), truncation bootstrap, per-sample and decoupled
            lambda, the CompactionRL factor (gamma*lambda)^tokensAfter; plus verl PR #6376's case
  whiten    verl masked_whiten: unbiased variance, rsqrt(var + 1e-8)
  ppo       verl compute_policy_loss_vanilla (asymmetric eps, dual clip), token-mean and
            seq-mean-token-mean, gradient by autograd; slime's dual-clip golden
  dis       SAO's band mask with a detached weight, gradient by autograd
  value     verl compute_value_loss (0.5 * max of squared errors), gradient by autograd
  kl        k1, k2, k3 (low_var_kl without the +-10 clamp), gradient by autograd
  kto       TRL KTOTrainer loss: z0 = clamp(mean KL, min=0).detach(), rotated mismatched pairs;
            also the gradient the mismatched pass WOULD get without the detach (must be non-zero,
            so the "no gradient into z0" check can fail)
  groups    GRPO (torch.std, unbiased, eps 1e-6), Dr.GRPO, RLOO

Regenerate (from the repository root, a few seconds; `pnpm golden` should run every script here):

    python3 tools/golden/rl_golden.py          # a python3 that has torch (here: /usr/bin/python3)

The output is deterministic (fixed seed, float64). Inputs are rounded to float32 so the GPU sees
exactly the fixture's numbers. Bump FIXTURE_VERSION (and the file name) when the format changes.
"""

import json
import os

import torch

FIXTURE_VERSION = 1
torch.manual_seed(20261130)
torch.set_default_dtype(torch.float64)


def f32(t):
    return t.to(torch.float32).to(torch.float64)


def rand(*shape, lo=-1.0, hi=1.0):
    return f32(lo + (hi - lo) * torch.rand(*shape))


def lst(t):
    return [float(x) for x in t.reshape(-1)]


def agent_mask(B, T):
    m = torch.zeros(B, T)
    for b in range(B):
        length = int(torch.randint(1, T + 1, ()))
        t = int(torch.randint(0, 3, ()))
        while t < length:
            for _ in range(int(torch.randint(1, 5, ()))):
                if t < length:
                    m[b, t] = 1
                    t += 1
            t += int(torch.randint(0, 4, ()))
    return m


# ---- GAE --------------------------------------------------------------------------------------


def gae_torch(r, V, m, gamma, lam, lam_c, terminal, bootstrap, tokens_after):
    B, T = r.shape
    A = torch.zeros(B, T)
    R = torch.zeros(B, T)
    for b in range(B):
        next_v = torch.tensor(0.0) if terminal[b] else bootstrap[b]
        next_a = torch.tensor(0.0)
        next_ac = torch.tensor(0.0)
        carry = torch.tensor(0.0)
        factor = (gamma * lam[b]) ** tokens_after[b]
        for t in reversed(range(T)):
            if m[b, t] == 0:
                carry = carry + r[b, t]
                continue
            delta = r[b, t] + carry + gamma * next_v - V[b, t]
            carry = torch.tensor(0.0)
            a = delta + gamma * lam[b] * next_a
            ac = delta + gamma * lam_c[b] * next_ac
            A[b, t] = factor * a
            R[b, t] = ac + V[b, t]
            next_v, next_a, next_ac = V[b, t], a, ac
    return A, R


def gae_case(name, B, T, gamma, lam, lam_c, terminal, tokens_after, r=None, V=None, m=None):
    m = agent_mask(B, T) if m is None else m
    r = rand(B, T) if r is None else r
    V = rand(B, T) if V is None else V
    bootstrap = rand(B)
    A, R = gae_torch(r, V, m, gamma, lam, lam_c, terminal, bootstrap, tokens_after)
    return dict(
        name=name, B=B, T=T, gamma=gamma, rewards=lst(r), values=lst(V), actionMask=lst(m), bootstrap=lst(bootstrap),
        terminal=[int(x) for x in terminal], tokensAfter=[int(x) for x in tokens_after], lambdaCritic=lst(lam_c), **{'lambda': lst(lam)},
        advantages=lst(A), returns=lst(R),
    )


def gae_cases():
    B, T = 4, 13
    lam = f32(torch.tensor([0.95, 0.9, 1.0, 0.5]))
    return [
        gae_case('agent masks, truncation, decoupled lambda, compaction', B, T, 0.99, lam, torch.tensor([1.0, 1.0, 0.97, 1.0]),
                 [1, 0, 1, 0], [0, 3, 0, 7]),
        gae_case('verl PR #6376: reward before a tool observation', 1, 3, 0.5, torch.tensor([1.0]), torch.tensor([1.0]), [1], [0],
                 r=torch.tensor([[0.0, 0.0, 1.0]]), V=torch.zeros(1, 3), m=torch.tensor([[1.0, 0.0, 1.0]])),
    ]


# ---- whitening --------------------------------------------------------------------------------


def whiten_case():
    x = rand(3, 11, lo=-3, hi=5)
    m = (torch.rand(3, 11) < 0.6).double()
    n = m.sum()
    mean = (x * m).sum() / n
    var = (((x - mean) ** 2) * m).sum() / n * n / (n - 1)  # verl masked_var(unbiased=True)
    out = (x - mean) * torch.rsqrt(var + 1e-8) * m
    return dict(B=3, T=11, values=lst(x), mask=lst(m), whitened=lst(out))


# ---- policy losses ----------------------------------------------------------------------------


def agg(loss_mat, m, mode):
    if mode == 'token-mean':
        return (loss_mat * m).sum() / m.sum()
    if mode == 'seq-mean-token-mean':
        keep = m.sum(-1) > 0
        return ((loss_mat * m).sum(-1)[keep] / m.sum(-1)[keep]).mean()
    raise ValueError(mode)


def ppo_case(mode, eps_low, eps_high, dual, B=3, T=9, logp=None, old=None, adv=None, m=None):
    old = rand(B, T, lo=-3, hi=-0.1) if old is None else old
    logp = f32(old + 0.8 * (torch.rand(B, T) - 0.5)) if logp is None else logp
    adv = rand(B, T, lo=-2, hi=2) if adv is None else adv
    m = (torch.rand(B, T) < 0.75).double() if m is None else m
    lp = logp.clone().requires_grad_(True)
    ratio = torch.exp(torch.clamp(lp - old, -20.0, 20.0))
    l1 = -adv * ratio
    l2 = -adv * torch.clamp(ratio, 1 - eps_low, 1 + eps_high)
    pg = torch.maximum(l1, l2)
    if dual:
        pg = torch.where(adv < 0, torch.minimum(-adv * dual, pg), pg)
    loss = agg(pg, m, mode)
    loss.backward()
    return dict(mode=mode, epsLow=eps_low, epsHigh=eps_high, dualClip=dual or 0, B=B, T=T, logp=lst(logp), oldLogp=lst(old),
                advantages=lst(adv), mask=lst(m), loss=float(loss), perToken=lst(pg.detach() * m), grad=lst(lp.grad))


def dis_case(eps_low, eps_high, B=3, T=9):
    old = rand(B, T, lo=-3, hi=-0.1)
    logp = f32(old + 1.2 * (torch.rand(B, T) - 0.5))
    adv = rand(B, T, lo=-2, hi=2)
    m = (torch.rand(B, T) < 0.75).double()
    lp = logp.clone().requires_grad_(True)
    ratio = torch.exp(torch.clamp(lp - old, -20.0, 20.0))
    w = torch.where((ratio > 1 - eps_low) & (ratio < 1 + eps_high), ratio, torch.zeros_like(ratio)).detach()
    pg = -w * adv * lp
    loss = agg(pg, m, 'token-mean')
    loss.backward()
    return dict(epsLow=eps_low, epsHigh=eps_high, B=B, T=T, logp=lst(logp), oldLogp=lst(old), advantages=lst(adv), mask=lst(m),
                loss=float(loss), perToken=lst(pg.detach() * m), grad=lst(lp.grad))


def value_case(clip, B=3, T=8):
    old = rand(B, T)
    V = f32(old + 0.8 * (torch.rand(B, T) - 0.5))
    R = rand(B, T)
    m = (torch.rand(B, T) < 0.75).double()
    v = V.clone().requires_grad_(True)
    clipped = old + torch.clamp(v - old, -clip, clip)
    losses = 0.5 * torch.maximum((v - R) ** 2, (clipped - R) ** 2)
    loss = agg(losses, m, 'token-mean')
    loss.backward()
    return dict(clip=clip, B=B, T=T, values=lst(V), oldValues=lst(old), returns=lst(R), mask=lst(m), loss=float(loss),
                perToken=lst(losses.detach() * m), grad=lst(v.grad))


def kl_case(estimator, B=2, T=10):
    ref = rand(B, T, lo=-4, hi=-0.1)
    logp = f32(ref + 3 * (torch.rand(B, T) - 0.5))
    m = (torch.rand(B, T) < 0.8).double()
    lp = logp.clone().requires_grad_(True)
    d = lp - ref
    if estimator == 'k1':
        k = d
    elif estimator == 'k2':
        k = 0.5 * d ** 2
    else:
        dc = torch.clamp(d, -20.0, 20.0)
        k = torch.exp(-dc) - 1 + dc
    loss = agg(k, m, 'token-mean')
    loss.backward()
    return dict(estimator=estimator, B=B, T=T, logp=lst(logp), refLogp=lst(ref), mask=lst(m), kl=float(loss),
                perToken=lst(k.detach() * m), grad=lst(lp.grad))


# ---- KTO (TRL) --------------------------------------------------------------------------------


def kto_case(B=5, T=6, beta=0.5, lam_d=1.0, lam_u=1.33):
    ref = rand(B, T, lo=-4, hi=-0.1)
    logp = f32(ref + 0.6 * (torch.rand(B, T) - 0.5) + 0.1)
    m = (torch.rand(B, T) < 0.8).double()
    kl_ref = rand(B, T, lo=-4, hi=-0.1)
    kl_logp = f32(kl_ref + 0.6 * (torch.rand(B, T) - 0.5) + 0.1)
    kl_m = (torch.rand(B, T) < 0.8).double()
    desirable = torch.tensor([1, 0, 1, 1, 0])
    lp = logp.clone().requires_grad_(True)
    klp = kl_logp.clone().requires_grad_(True)
    chosen = ((lp - ref) * m).sum(-1)
    kl_sums = ((klp - kl_ref) * kl_m).sum(-1)
    z0_live = kl_sums.mean().clamp(min=0)
    z0 = z0_live.detach()
    d = desirable.bool()
    losses = torch.cat((lam_d * (1 - torch.sigmoid(beta * (chosen[d] - z0))), lam_u * (1 - torch.sigmoid(beta * (z0 - chosen[~d])))), 0)
    loss = losses.nanmean()
    loss.backward()
    grad_logp = lp.grad.clone()
    assert klp.grad is None  # z0 detached: no gradient reaches the mismatched pass
    # The same loss with z0 NOT detached, to show what the detach removes.
    lp2 = logp.clone().requires_grad_(True)
    klp2 = kl_logp.clone().requires_grad_(True)
    chosen2 = ((lp2 - ref) * m).sum(-1)
    z0b = ((klp2 - kl_ref) * kl_m).sum(-1).mean().clamp(min=0)
    losses2 = torch.cat((lam_d * (1 - torch.sigmoid(beta * (chosen2[d] - z0b))), lam_u * (1 - torch.sigmoid(beta * (z0b - chosen2[~d])))), 0)
    losses2.nanmean().backward()
    return dict(B=B, T=T, beta=beta, lambdaD=lam_d, lambdaU=lam_u, logp=lst(logp), refLogp=lst(ref), mask=lst(m), klLogp=lst(kl_logp),
                klRefLogp=lst(kl_ref), klMask=lst(kl_m), desirable=[int(x) for x in desirable], loss=float(loss), z0=float(z0),
                rewards=lst(chosen.detach()), grad=lst(grad_logp), klGradIfNotDetached=lst(klp2.grad))


# ---- group baselines --------------------------------------------------------------------------


def groups_case():
    rewards = f32(torch.tensor([1.0, 0.0, 0.0, 1.0, 0.5, 0.25, 0.75, 3.0, 0.0, 0.0]))
    ids = [0, 0, 0, 0, 1, 1, 1, 2, 3, 3]
    out = {k: [0.0] * len(ids) for k in ('grpo', 'dr-grpo', 'rloo')}
    for g in set(ids):
        idx = [i for i, x in enumerate(ids) if x == g]
        r = rewards[idx]
        if len(idx) == 1:
            continue
        grpo = (r - r.mean()) / (r.std() + 1e-6)
        rloo = r - (r.sum() - r) / (len(idx) - 1)
        for j, i in enumerate(idx):
            out['grpo'][i] = float(grpo[j])
            out['dr-grpo'][i] = float(r[j] - r.mean())
            out['rloo'][i] = float(rloo[j])
    return dict(rewards=lst(rewards), groupIds=ids, **out)


def main():
    slime_dual = ppo_case('token-mean', 0.2, 0.2, 1.5, B=1, T=3, logp=f32(torch.log(torch.tensor([[2.0, 2.0, 0.5]]))),
                          old=torch.zeros(1, 3), adv=torch.tensor([[2.0, -2.0, 2.0]]), m=torch.ones(1, 3))
    fixture = dict(
        version=FIXTURE_VERSION,
        generator='tools/golden/rl_golden.py',
        torch=torch.__version__,
        gae=gae_cases(),
        whiten=whiten_case(),
        ppo=[ppo_case('token-mean', 0.2, 0.28, 0), ppo_case('seq-mean-token-mean', 0.2, 0.2, 3.0), slime_dual],
        dis=[dis_case(0.3, 0.5)],
        value=[value_case(0.2)],
        kl=[kl_case(k) for k in ('k1', 'k2', 'k3')],
        kto=kto_case(),
        groups=groups_case(),
    )
    assert fixture['ppo'][2]['perToken'] == [-2.4000000000000004, 3.0, -1.0] or all(
        abs(a - b) < 1e-6 for a, b in zip(fixture['ppo'][2]['perToken'], [-2.4, 3.0, -1.0]))
    path = os.path.join(os.path.dirname(__file__), '..', '..', 'tests', 'fixtures', f'rl-golden-v{FIXTURE_VERSION}.json')
    with open(path, 'w') as f:
        json.dump(fixture, f, separators=(',', ':'))
        f.write('\n')
    print(f'wrote {os.path.normpath(path)}')


if __name__ == '__main__':
    main()
