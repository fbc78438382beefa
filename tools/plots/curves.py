"""Training curves for the docs, from run directories written by `horizon train` (metrics.jsonl)
and the SFT-only baseline written by tools/experiments/sft-baseline.ts.

  /usr/bin/python3 tools/plots/curves.py --run PPO=docs/data/add-ppo --run GRPO=docs/data/add-grpo \
      --run RLOO=docs/data/add-rloo --sft-baseline docs/data/sft-baseline.jsonl --out docs/curves-addition.png

Left: greedy held-out success against wall time since the run started (the SFT warm start is the
shared first stretch). Right: the same against RL iterations, with the rollout success of each
iteration faintly behind. Needs python3-matplotlib (Debian)."""

import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(run_dir):
    lines = open(f"{run_dir}/metrics.jsonl").read().strip().split("\n")[1:]
    evals, rollouts = [], []
    for line in lines:
        record = json.loads(line)
        metrics = record["metrics"]
        if record["phase"] == "eval":
            evals.append((record["step"], record["time_s"], metrics["eval/held_out_success"]))
        elif record["phase"] == "rl":
            rollouts.append((record["step"], metrics["rollout/success"]))
    return evals, rollouts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--run", action="append", required=True, help="LABEL=run directory")
    parser.add_argument("--sft-baseline", help="JSONL from tools/experiments/sft-baseline.ts")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    fig, (by_time, by_iteration) = plt.subplots(1, 2, figsize=(12, 4.4))
    colors = ["#b35806", "#542788", "#1b7837", "#666666"]
    sft_end = None
    for color, spec in zip(colors, args.run):
        label, path = spec.split("=", 1)
        evals, rollouts = load(path)
        sft_end = evals[0][1]
        by_time.plot([e[1] for e in evals], [100 * e[2] for e in evals], "-o", ms=3, color=color, label=label)
        by_iteration.plot([e[0] for e in evals], [100 * e[2] for e in evals], "-o", ms=3, color=color, label=f"{label}: held-out (greedy)")
        by_iteration.plot([r[0] for r in rollouts], [100 * r[1] for r in rollouts], "-", lw=0.6, alpha=0.35, color=color)
    if args.sft_baseline:
        points = [json.loads(line) for line in open(args.sft_baseline) if line.strip()]
        by_time.plot([sft_end + p["seconds"] for p in points], [100 * p["heldOut"] for p in points], "--s", ms=3, color=colors[3], label="SFT only (same extra time)")
    by_time.axvline(sft_end, color="#999999", lw=0.8, ls=":")
    by_time.text(sft_end, 2, " RL starts", color="#666666", fontsize=8)
    by_time.set_xlabel("wall time since start (s), 2-core CPU, SwiftShader")
    by_iteration.set_xlabel("RL iteration (128 rollouts each; faint: rollout success at τ = 1)")
    for ax, where in ((by_time, "lower right"), (by_iteration, "upper left")):
        ax.set_ylabel("held-out success (%)")
        ax.set_ylim(0, 100)
        ax.grid(alpha=0.3)
        ax.legend(loc=where, fontsize=8)
    fig.suptitle("1–2 digit addition: greedy success on 200 held-out problems after a weak SFT warm start")
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)


if __name__ == "__main__":
    main()
