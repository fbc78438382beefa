#!/usr/bin/env bash
# One black-box training run end to end: a warm start (the default recipe's SFT and one iteration),
# `horizon serve --train` on it, and the outside agent (tests/cli/blackbox-agent.mjs: the plain
# `openai` client, no Horizon code) driving UPDATES updates of 128 sessions each, measuring greedy
# success on its own 100 held-out problems before and after. The warm start is made once per
# OUT directory and shared by every seed; each seed's agent line lands in OUT/agent-SEED.json.
#
#   bash tools/experiments/blackbox-run.sh OUT SEED [UPDATES]     # UPDATES defaults to 60
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 OUT SEED [UPDATES]" >&2; exit 2; }
out=$(realpath -m "$1"); seed=$2; updates=${3:-60}
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$repo"
horizon=(node --import tsx packages/node-runner/src/main.ts)
mkdir -p "$out"

warm=$out/warm
if [ ! -d "$warm/checkpoints" ]; then
  echo "[blackbox] warm start: add-ppo-fast's SFT and one (critic-only) iteration → $warm"
  "${horizon[@]}" train --quiet --recipe add-ppo-fast --set rl.iterations=1 --set checkpoint.interval=1 --out "$warm"
fi

run=$out/run-$seed
rm -rf "$run"
"${horizon[@]}" serve --train --checkpoint "$warm" --port 0 --model-id add --out "$run" > "$run.serve.log" 2>&1 &
server=$!
trap 'kill -TERM $server 2>/dev/null || true' EXIT
url=''
for _ in $(seq 1 600); do
  url=$(grep -o 'http://127.0.0.1:[0-9]*/v1' "$run.serve.log" | head -n 1 || true)
  [ -n "$url" ] && break
  kill -0 $server 2>/dev/null || { cat "$run.serve.log" >&2; exit 1; }
  sleep 1
done
[ -n "$url" ] || { echo "[blackbox] the server did not start in 600 s" >&2; exit 1; }
echo "[blackbox] seed $seed: $updates updates × 128 sessions against $url"
start=$(date +%s)
node tests/cli/blackbox-agent.mjs "$url" add "$updates" 128 1 "$seed" > "$out/agent-$seed.json"
echo "[blackbox] seed $seed: agent done in $(( $(date +%s) - start )) s: $(node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log(`held-out ${r.before} → ${r.after}, ${r.changed} answers changed`)' "$out/agent-$seed.json")"
