#!/usr/bin/env bash
# Runs the real app in a real X window (under the caller's Xvfb), generates one run of
# COUNT images (default 4) on the given model, waits until they are all in the gallery with
# their thumbnails (the run's grid then shows under the viewer), and captures the window
# from the X server (what a person would see).
# Usage: [COUNT=N] screenshot.sh BINARY MODEL_DIR OUT.png
set -euo pipefail
bin=$1 model=$2 out=$3
count=${COUNT:-4}
data=$(mktemp -d)
# The app's own folders (the window size, the device calibration, caches) go to a
# temporary home too: the check leaves the user's ~/.config and ~/.cache as they were.
home=$(mktemp -d)
stop() {
  kill "$pid" 2>/dev/null || true
  for _ in 1 2 3 4 5 6; do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -9 "$pid" 2>/dev/null || true # a GL app can hang in teardown when the X server goes
  rm -rf "$data" "$home"
}
trap stop EXIT
XAUTHORITY=${XAUTHORITY:-$HOME/.Xauthority} HOME=$home XDG_CONFIG_HOME=$home/.config XDG_CACHE_HOME=$home/.cache XDG_DATA_HOME=$home/.local/share \
  "$bin" gui --model "$model" --data "$data" --prompt "A red cube on a blue table" --generate --count "$count" &
pid=$!
n() { find "$1" -maxdepth 1 -name '*.png' ! -name '.*' 2>/dev/null | wc -l; }
for _ in $(seq 1 240); do
  if [ "$(n "$data/thumbs")" -ge "$count" ] && [ "$(n "$data/gallery")" -ge "$count" ]; then break; fi
  kill -0 "$pid" 2>/dev/null || { echo "screenshot: the app exited early" >&2; exit 1; }
  sleep 0.5
done
[ "$(n "$data/gallery")" -ge "$count" ] || { echo "screenshot: $(n "$data/gallery") of $count images were generated within 2 minutes" >&2; exit 1; }
sleep 2 # let the thumbnail and result view repaint
win=$(xdotool search --name '^Kleinbild' | head -n 1)
[ -n "$win" ] || { echo "screenshot: Kleinbild window not found" >&2; exit 1; }
import -window "$win" "$out.tmp.png"
mv "$out.tmp.png" "$out"
echo "screenshot: wrote $out"
