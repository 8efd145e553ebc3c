#!/usr/bin/env bash
# The Windows test run under wine (make test-wine): kleinbild.exe from `make windows` and the
# Windows builds of the Go tests of the packages with Windows files, run in a fresh wine prefix.
# Usage: .ci/wine/run.sh EXE LINUX_BIN
#   EXE        dist/windows/kleinbild.exe
#   LINUX_BIN  the Linux build of the same commit: its CPU pixels are the reference
# Environment: GO (go), WINE (wine64), KEEP=1 keeps the work folder.
set -euo pipefail
cd "$(dirname "$0")/../.."
EXE=$(realpath "$1")
LINUX=$(realpath "$2")
GO=${GO:-go}
WINE=${WINE:-$(command -v wine64 || command -v wine || echo /usr/lib/wine/wine64)}
TINY=$(realpath ../shared/golden/model/tiny-flux2-klein)
GGUF=$(realpath ../shared/golden/gguf/model)
WORK=$(mktemp -d /tmp/kleinbild-wine.XXXXXX)
[ "${KEEP:-}" = 1 ] || trap 'WINEPREFIX=$WORK/prefix "${WINE%64}server" -k 2>/dev/null || true; rm -rf "$WORK"' EXIT
export WINEPREFIX=$WORK/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" LANG=C.UTF-8
fails=0
step() { printf '\n== %s (%ds)\n' "$1" "$SECONDS"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
win() { "$WINE" "$EXE" "$@"; }
winpath() { "$WINE" winepath -w "$1" 2>/dev/null | tr -d '\r'; }
# pixels prints the SHA-256 of a PNG's decoded RGBA pixels (metadata, such as the model's path,
# differs between the platforms).
pixels() { convert "$1" -depth 8 rgba:- | sha256sum | cut -d' ' -f1; }

step "wine prefix and the stand-in bcryptprimitives.dll"
"$WINE" wineboot -i >/dev/null 2>&1
x86_64-w64-mingw32-gcc -O2 -shared -s -o "$WORK/bcryptprimitives.dll" .ci/wine/bcryptprimitives.c -ladvapi32
cp "$WORK/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/"
C=$WINEPREFIX/drive_c

step "kleinbild.exe devices"
win devices >"$WORK/devices.txt" 2>"$WORK/devices.err" || fail "devices exited $?"
cat "$WORK/devices.txt" "$WORK/devices.err"
grep -q $'^purego\tcpu\t.*\t\\*' "$WORK/devices.txt" || fail "devices: purego is not listed as the default CPU device"
win devices --json | grep -q '"backend": "purego"' || fail "devices --json: no purego"

step "generate on the tiny model: pixels identical to Linux's"
gen=(-p "a red fox in the snow" -W 64 -H 48 -S 7 --backend purego -q)
"$LINUX" generate -d "$TINY" "${gen[@]}" -o "$WORK/linux.png"
# The model by drive letter and backslashes; the output in a folder with spaces and
# non-ASCII letters, named with forward slashes.
mkdir -p "$C/Kleinbild Tests/Bilder äöü 画像"
win generate -d "$(winpath "$TINY")" "${gen[@]}" -o "C:/Kleinbild Tests/Bilder äöü 画像/füchs.png" ||
	fail "generate exited $?"
out="$C/Kleinbild Tests/Bilder äöü 画像/füchs.png"
if [ -f "$out" ] && [ "$(pixels "$out")" = "$(pixels "$WORK/linux.png")" ]; then
	echo "pixels identical: $(pixels "$out")"
else
	fail "generate: the Windows picture differs from Linux's (or is missing)"
fi

step "a model under a non-ASCII name with spaces, a relative path with backslashes"
mkdir -p "$C/Modelle ü"
cp -r "$TINY" "$C/Modelle ü/tiny klein 模型"
(cd "$C/Kleinbild Tests" && win generate -d '..\Modelle ü\tiny klein 模型' "${gen[@]}" -o 'Bilder äöü 画像\zwei.png') ||
	fail "generate (relative) exited $?"
[ "$(pixels "$C/Kleinbild Tests/Bilder äöü 画像/zwei.png" 2>/dev/null)" = "$(pixels "$WORK/linux.png")" ] ||
	fail "generate (relative): pixels differ from Linux's"

step "an existing output is replaced whole, an output that is an input is refused"
cp "$WORK/linux.png" "$C/vorher.png"
win generate -d "C:\\Modelle ü\\tiny klein 模型" "${gen[@]}" -S 8 -o 'C:\vorher.png' || fail "generate over an existing file exited $?"
"$LINUX" generate -d "$TINY" "${gen[@]}" -S 8 -o "$WORK/linux8.png"
[ "$(pixels "$C/vorher.png")" = "$(pixels "$WORK/linux8.png")" ] || fail "the replaced output is not the new picture"
ls -A "$C" | grep -q tmp-kleinbild && fail "a temporary file was left in C:\\"
ref="$C/Kleinbild Tests/Bilder äöü 画像/füchs.png"
before=$(sha256sum <"$ref")
if win generate -d "$(winpath "$TINY")" "${gen[@]}" -i 'C:\Kleinbild Tests\Bilder äöü 画像\füchs.png' \
	-o 'C:\Kleinbild Tests\Bilder äöü 画像\füchs.png' 2>"$WORK/refuse.err"; then
	fail "an output that is an input was accepted"
fi
cat "$WORK/refuse.err"
grep -q 'is also an input of this run' "$WORK/refuse.err" || fail "the refusal does not say why"
[ "$(sha256sum <"$ref")" = "$before" ] || fail "the input was changed"
ln "$ref" "$C/Kleinbild Tests/verknüpft.png"
win generate -d "$(winpath "$TINY")" "${gen[@]}" -i 'C:\Kleinbild Tests\Bilder äöü 画像\füchs.png' \
	-o 'C:\Kleinbild Tests\verknüpft.png' 2>"$WORK/refuse1.err" && fail "an output hard-linked to an input was accepted"
grep -q 'which this run reads' "$WORK/refuse1.err" || fail "the hard link's refusal does not say why"
[ "$(sha256sum <"$ref")" = "$before" ] || fail "the input was changed through its hard link"
model="$C/Modelle ü/tiny klein 模型/vae/diffusion_pytorch_model.safetensors"
before=$(sha256sum <"$model")
win generate -d 'C:\Modelle ü\tiny klein 模型' "${gen[@]}" -o 'c:\modelle ü\tiny klein 模型\VAE\diffusion_pytorch_model.safetensors' \
	2>"$WORK/refuse2.err" && fail "an output that is a model file (in other letter case) was accepted"
cat "$WORK/refuse2.err"
[ "$(sha256sum <"$model")" = "$before" ] || fail "the model file was changed"

step "info and generate on the ComfyUI and GGUF golden models"
G=$GGUF/comfyui/diffusion_models
for args in "-d $GGUF/comfyui --vae-groups 8" "-d $TINY --transformer $G/flux-2-klein-tiny-Q8_0-mix.gguf" \
	"-d $TINY --transformer $GGUF/sdcpp/flux-2-klein-tiny-q8_0-q4_k.gguf --vae $GGUF/comfyui/vae/flux2-ae-tiny.safetensors"; do
	read -ra la <<<"$args"
	wa=()
	for a in "${la[@]}"; do case $a in /*) wa+=("$(winpath "$a")") ;; *) wa+=("$a") ;; esac; done
	"$LINUX" info "${la[@]}" >"$WORK/info.linux" 2>&1 || fail "info $args exited $? on Linux"
	win info "${wa[@]}" >"$WORK/info.win" 2>&1 || fail "info $args exited $?"
	# The same report, paths aside (Z:\work\shared\... there, /work/shared/... here).
	tr -d '\r' <"$WORK/info.win" | sed 's|Z:||g' | tr '\\' / >"$WORK/info.w"
	if diff "$WORK/info.linux" "$WORK/info.w"; then echo "info $args: as on Linux"; else fail "info $args differs from Linux's"; fi
done
"$LINUX" generate -d "$GGUF/comfyui" --vae-groups 8 "${gen[@]}" -o "$WORK/comfy.png"
win generate -d "$(winpath "$GGUF/comfyui")" --vae-groups 8 "${gen[@]}" -o 'C:\comfy.png' || fail "generate (ComfyUI, GGUF) exited $?"
[ "$(pixels "$C/comfy.png" 2>/dev/null)" = "$(pixels "$WORK/comfy.png")" ] || fail "generate (ComfyUI, GGUF): pixels differ from Linux's"

step "Go tests of the packages with Windows files (pure Go, built for windows/amd64)"
# Go 1.26 deletes files with FileDispositionInformationEx, which wine 8 does not implement
# (STATUS_NOT_IMPLEMENTED; Windows 10 has it): the test binaries alone are built with that status
# added to the standard library's fallback, or every t.TempDir cleanup fails.
at=$("$GO" env GOROOT)/src/internal/syscall/windows/at_windows.go
sed 's|STATUS_NOT_SUPPORTED:     // the file system|STATUS_NOT_SUPPORTED, NTStatus(0xC0000002): // wine 8|' "$at" >"$WORK/at_windows.go"
grep -q 'NTStatus(0xC0000002)' "$WORK/at_windows.go" || { fail "the wine overlay no longer applies to $at"; }
printf '{"Replace":{"%s":"%s"}}' "$at" "$WORK/at_windows.go" >"$WORK/overlay.json"
# Each package with its tests to run and to skip; skipped, with the reason:
#   a folder named we[ird]*? (not a valid Windows name): weights TestOpenFolder
#   symlinks, which wine 8 creates but cannot open or stat (hard links work): safefile
#     TestReadRegular, atomicfile TestCheckOutputRefusesInputs, download
#     TestDownloadRefusesSymlinkedSubfolder and TestValidate* (models linked to the golden
#     files), engine's base-model case (golden.TinyBaseModel links it)
#   a GGUF model opened by download.Validate stays mapped (engine/source keeps an
#     assembled source's files open; it has no Close), and Windows refuses to delete a mapped
#     file, so t.TempDir's cleanup fails: download TestDownloadAssembled*
# engine: the golden pipeline cases alone (the whole package takes minutes), on pure Go.
tests=(
	"weights|.|^TestOpenFolder$"
	"app/settings|.|^$"
	"internal/sysmem|.|^$"
	"download|.|^(TestDownloadRefusesSymlinkedSubfolder|TestValidate.*|TestDownloadAssembled.*)$"
	"internal/safefile|.|^TestReadRegular$"
	"engine|^TestPipelineGolden$|^TestPipelineGolden/t2i_base"
)
for t in "${tests[@]}"; do
	IFS='|' read -r p run skip <<<"$t"
	bin=$WORK/$(echo "$p" | tr / _).test.exe
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 "$GO" test -overlay "$WORK/overlay.json" -c -o "$bin" "./$p"
	if (cd "$p" && "$WINE" "$bin" -test.v -test.count=1 -test.timeout=5m -test.run "$run" -test.skip "$skip" >"$WORK/test.log" 2>&1); then
		echo "ok   $p under wine: $(grep -c -- '--- PASS' "$WORK/test.log") passed, $(grep -c -- '--- SKIP' "$WORK/test.log") skipped"
	else
		grep -vE '^\s*(=== (RUN|PAUSE|CONT)|--- PASS)' "$WORK/test.log" | tail -60
		fail "go test $p under wine"
	fi
done

step "done"
[ "$fails" = 0 ] || { echo "$fails failure(s) under wine"; exit 1; }
echo "Windows run under wine: all passed"
