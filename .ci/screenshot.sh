#!/usr/bin/env bash
# Runs the real app in a real X window (under the caller's Xvfb), generates once on the
# given model, waits until the image is in the gallery and its thumbnail is drawn, and
# captures the window from the X server (what a person would see).
# Usage: screenshot.sh BINARY MODEL_DIR OUT.png
set -euo pipefail
bin=$1 model=$2 out=$3
data=$(mktemp -d)
stop() {
  kill "$pid" 2>/dev/null || true
  for _ in 1 2 3 4 5 6; do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -9 "$pid" 2>/dev/null || true # a GL app can hang in teardown when the X server goes
  rm -rf "$data"
}
trap stop EXIT
"$bin" gui --model "$model" --data "$data" --prompt "A red cube on a blue table" --generate &
pid=$!
for _ in $(seq 1 240); do
  if ls "$data"/thumbs/*.png >/dev/null 2>&1 && ls "$data"/gallery/*.png >/dev/null 2>&1; then break; fi
  kill -0 "$pid" 2>/dev/null || { echo "screenshot: the app exited early" >&2; exit 1; }
  sleep 0.5
done
ls "$data"/gallery/*.png >/dev/null 2>&1 || { echo "screenshot: no image was generated within 2 minutes" >&2; exit 1; }
sleep 2 # let the thumbnail and result view repaint
win=$(xdotool search --name '^Kleinbild' | head -n 1)
[ -n "$win" ] || { echo "screenshot: Kleinbild window not found" >&2; exit 1; }
import -window "$win" "$out.tmp.png"
mv "$out.tmp.png" "$out"
echo "screenshot: wrote $out"
