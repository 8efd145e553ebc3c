# Kleinbild — local FLUX.2-klein image generation.
# `make deps` once on a fresh Debian/Ubuntu machine (needs root or sudo), then `make run` or `make test`.

GO        ?= go
BIN       ?= kleinbild
PKGS      := ./...
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_PKGS  := gcc libc6-dev pkg-config libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev \
             libxinerama-dev libxi-dev libxxf86vm-dev libopenblas-dev libdnnl-dev \
             xvfb xauth libgl1-mesa-dri xdotool imagemagick \
             mesa-vulkan-drivers libvulkan1 \
             gcc-mingw-w64-x86-64 wine64
APT_PKGS  += glslc glslang-tools spirv-tools
TINY      ?= ../shared/golden/model/tiny-flux2-klein
MODEL     ?= $(TINY)
SHOT      ?= screenshot.png
FUZZTIME  ?= 5s
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: shaders check-shaders test-vulkan test-vulkan-all
.PHONY: all deps build run test windows test-wine test-webgpu test-webgpu-limits test-purego portability fuzz bench bench-gpu lint package screenshot check-screenshot clean

all: build

deps:
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $(APT_PKGS)
	$(GO) mod download

build:
	$(GO) build -o $(BIN) .

# Opens the desktop app (pick a model folder in Settings; the tiny golden model works for a try).
run: build
	./$(BIN)

# Everything CI checks: formatting, vet, all tests with the OpenBLAS backend (the WebGPU
# conformance suite on Mesa's software Vulkan included, required), the golden model tests again
# on WebGPU, the pure-Go backend without cgo, the Windows build under wine, short fuzz runs of
# the parsers, and a real-window screenshot.
test:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)
	KLEINBILD_REQUIRE_WEBGPU=1 $(GO) test -count=1 $(PKGS)
	$(MAKE) test-webgpu
	$(MAKE) test-webgpu-limits
	$(MAKE) test-vulkan
	$(MAKE) test-purego
	$(MAKE) portability
	$(MAKE) test-wine
	$(MAKE) fuzz
	$(MAKE) check-screenshot

# The golden model tests (text encoder, transformer, VAE, whole pipeline) on the WebGPU
# backend: the best adapter present, Mesa's software Vulkan (llvmpipe) on CI. Only the tests
# that compute (golden numbers, cancellation, memory, errors from the device): parsing and
# loading tests do not depend on the backend, and llvmpipe is slow (about 10 min for these).
WEBGPU_TESTS := TestEncodePrompts|TestHiddenStatesPerLayer|TestEncodeCancel|TestReleaseFreesTensors|TestGoldenForward|TestGoldenIntermediates|TestForwardCancel|TestForwardBadTensors|TestDecodeGolden|TestEncodeGolden|TestChain|TestPatchifyLayout|TestMemory|TestCancel|TestPipelineGolden|TestGenerateCancel|TestGenerateFreesTensors|TestNonFinite.*|TestDefaultFromEnv|TestOpenWebGPURepeatedly|TestInpaintGolden|TestInpaintRejects|TestGGUFForward|TestGGUFEncode|TestAdaptersRunTime|TestLoRAPipelineStackLoKr|TestLoRAPipelineGolden|TestGGUFPipelineGolden
# All nine inpainting golden cases run on WebGPU (about 2–5 minutes on lavapipe); a
# comma-separated list of name parts here runs a subset.
WEBGPU_INPAINT_CASES :=
# The engine package runs in two parts, each with a timeout of its own: as one it took 39 min
# of its 40 on a loaded machine (the inpainting, adapter and GGUF pipelines are the second part:
# the GGUF ones run the quantized weights on the generated Linear tiles).
WEBGPU_ENGINE_B := TestInpaintGolden|TestInpaintRejects|TestLoRAPipelineStackLoKr|TestLoRAPipelineGolden|TestGGUFPipelineGolden
test-webgpu:
	KLEINBILD_BACKEND=webgpu KLEINBILD_REQUIRE_WEBGPU=1 $(GO) test -count=1 -timeout 40m -run '^($(WEBGPU_TESTS))$$' -skip '^($(WEBGPU_ENGINE_B))$$' \
	  ./gpu/backends ./engine/qwen3 ./engine/flux2 ./engine/vae ./engine
	KLEINBILD_BACKEND=webgpu KLEINBILD_REQUIRE_WEBGPU=1 KLEINBILD_INPAINT_CASES=$(WEBGPU_INPAINT_CASES) $(GO) test -count=1 -timeout 40m -run '^($(WEBGPU_ENGINE_B))$$' ./engine

# The conformance suite again on a device opened with WebGPU's default limits (16 KB of
# workgroup memory, 128 MiB bindings, 256 invocations), so that the paths for portable GPUs
# run; then once per non-reference kernel variant, forced (about 1 min on llvmpipe each).
test-webgpu-limits:
	KLEINBILD_REQUIRE_WEBGPU=1 KLEINBILD_WEBGPU_SUITES=1 $(GO) test -count=1 -timeout 30m -run '^(TestConformanceDefaultLimits|TestForcedVariants)$$' ./gpu/webgpu

# The Vulkan backend's GLSL kernels compiled to the SPIR-V that gpu/vulkan embeds (commit
# the .spv files: go build needs no shader compiler), and CI's check that they are up to date
# (a fresh glslc compile equals them byte for byte) and valid (spirv-val).
VK_SHADERS := $(wildcard gpu/vulkan/shaders/*.comp)
GLSLC      := glslc --target-env=vulkan1.1 -O
shaders:
	@for f in $(VK_SHADERS); do echo "glslc $$f"; $(GLSLC) $$f -o $${f%.comp}.spv || exit 1; done
check-shaders:
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; for f in $(VK_SHADERS); do \
	  spv=$${f%.comp}.spv; $(GLSLC) $$f -o $$tmp/out.spv; \
	  cmp -s $$tmp/out.spv $$spv || { echo "$$spv is not glslc's output for $$f: run make shaders"; exit 1; }; \
	  spirv-val --target-env vulkan1.1 $$spv; done; echo "SPIR-V of $(words $(VK_SHADERS)) kernels up to date and valid"

# The Vulkan backend on lavapipe, after go test ./... ran its conformance suite (which skips
# without a device): the SPIR-V check, a device required, and a subset of the golden model
# tests: three of the five pipeline cases (t2i, i2i with two references, base with CFG). The
# rest, and every golden test of the WebGPU list: make test-vulkan-all. The fast precision
# (float16 Linear, Conv2D and attention) runs in go test ./... on the shorter conformance
# shapes and one pipeline case (TestConformanceFast, TestPipelineFastPrecision);
# test-vulkan-all runs all of them.
VK_TESTS := TestEncodePrompts|TestGoldenForward|TestDecodeGolden|TestEncodeGolden
VK_PIPELINE_CASES := t2i_distilled_48x80_4steps|i2i_distilled_2refs_48x48_4steps|t2i_base_cfg4_48x64_3steps
test-vulkan: check-shaders
	KLEINBILD_REQUIRE_VULKAN=1 $(GO) test -count=1 -run '^TestDevices$$' ./gpu/vulkan
	KLEINBILD_BACKEND=vulkan $(GO) test -count=1 -timeout 30m -run '^($(VK_TESTS))$$' ./engine/qwen3 ./engine/flux2 ./engine/vae
	KLEINBILD_BACKEND=vulkan $(GO) test -count=1 -timeout 30m -run '^TestPipelineGolden$$/^($(VK_PIPELINE_CASES))$$' ./engine
test-vulkan-all: check-shaders
	KLEINBILD_REQUIRE_VULKAN=1 $(GO) test -count=1 -run '^TestDevices$$' ./gpu/vulkan
	KLEINBILD_VULKAN_ALL=1 $(GO) test -count=1 -run '^TestConformanceFast$$' ./gpu/vulkan
	KLEINBILD_VULKAN_ALL=1 $(GO) test -count=1 -timeout 30m -run '^TestPipelineFastPrecision$$' ./engine
	KLEINBILD_VULKAN_ALL=1 $(GO) test -count=1 -run '^TestGeneratePrecisionFast$$' ./cli
	KLEINBILD_BACKEND=vulkan KLEINBILD_REQUIRE_VULKAN=1 $(GO) test -count=1 -run '^TestProfileVulkan$$' ./bench
	KLEINBILD_BACKEND=vulkan $(GO) test -count=1 -timeout 60m -run '^($(WEBGPU_TESTS))$$' ./engine/qwen3 ./engine/flux2 ./engine/vae ./engine

# The packages that need no cgo must build for the platforms CI cannot run: vet them for macOS
# and Windows so platform files (memory probes, file mapping, data folders) cannot break
# silently. (The Fyne UI packages need cgo for those targets and are left out.)
PORTABLE  := ./weights/... ./gpu/... ./engine/... ./internal/... ./download/... ./estimate/... ./bench/... ./randmodel/...
portability:
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) vet $(PORTABLE)
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) vet $(PORTABLE)

test-purego:
	CGO_ENABLED=0 $(GO) test -count=1 $(PORTABLE)

# Windows: kleinbild.exe cross-built with mingw-w64 (the app and the CLI, pure-Go CPU backend,
# WebGPU on Direct3D 12 or Vulkan), with the icon, version resource and manifest of
# FyneApp.toml (fyne package, which also counts up the Build there: kept as it was). It needs
# no DLL beyond Windows' own, so nothing goes beside it: checked against WINSYSDLLS.
WINCC      ?= x86_64-w64-mingw32-gcc
WINDIST    := dist/windows
WINSYSDLLS := api-ms-win-[a-z0-9-]+\.dll|(advapi32|bcrypt|bcryptprimitives|comdlg32|d3dcompiler_47|dwmapi|gdi32|imm32|kernel32|msvcrt|ntdll|ole32|oleaut32|opengl32|shell32|shlwapi|user32|userenv|winmm|ws2_32)\.dll
windows:
	mkdir -p $(WINDIST)
	cp FyneApp.toml $(WINDIST)/FyneApp.toml.keep
	CGO_ENABLED=0 CC=$(WINCC) $(GO) tool fyne package --os windows --icon resources/icon.png; \
	  s=$$?; mv -f $(WINDIST)/FyneApp.toml.keep FyneApp.toml; exit $$s
	mv -f Kleinbild.exe $(WINDIST)/kleinbild.exe
	@x86_64-w64-mingw32-objdump -p $(WINDIST)/kleinbild.exe | sed -n 's/^\tDLL Name: //p' | tr A-Z a-z | sort | \
	  grep -vxE '$(WINSYSDLLS)' && { echo "kleinbild.exe needs DLLs Windows lacks (above)"; exit 1; } || true

# The Windows run under wine (.ci/wine/run.sh): kleinbild.exe devices, generate compared pixel
# for pixel with the Linux build, info on the GGUF and ComfyUI models, drive letters,
# backslashes, spaces and non-ASCII paths, outputs that exist or are inputs, and the Go tests of
# the packages with Windows files.
test-wine: windows build
	.ci/wine/run.sh $(WINDIST)/kleinbild.exe ./$(BIN)

# Every parser of outside data has a fuzz target; each runs FUZZTIME (longer: make fuzz
# FUZZTIME=5m). Minimising a new input is capped so that short runs still execute widely.
# Fuzzing runs on Go 1.27.3 (fetched by the go command from the module proxy, about 10 s):
# Go 1.26's fuzz coordinator can report a bare "context deadline exceeded" failure when
# -fuzztime ends while a worker is mid-call on a loaded machine (go.dev/issue/75804, fixed
# in 1.27). The corpus replay in `go test ./...` stays on the project's Go.
FUZZ_GO ?= GOTOOLCHAIN=go1.27.3 $(GO)
FUZZ_TARGETS := weights:FuzzParse weights:FuzzParseIndex weights/gguf:FuzzParse weights/remap:FuzzPlans engine/tokenizer:FuzzEncode \
                engine/tokenizer:FuzzLoadTokenizerJSON engine/sched:FuzzSchedulerConfig \
                engine/qwen3:FuzzQwen3Config engine/flux2:FuzzFlux2Config engine/vae:FuzzVAEConfig \
                engine:FuzzModelIndex engine/imageio:FuzzImageHeader engine/imageio:FuzzReadMetadata \
                download:FuzzParseListing download:FuzzPartState app/gallery:FuzzIndex app/settings:FuzzSettings \
                app/history:FuzzParse app/jobs:FuzzParseQueue \
                engine/lora:FuzzParseAdapter cli:FuzzParseLoRASpec \
                engine/inpaint:FuzzParsePadding \
                gpu/webgpu:FuzzTuneCache gpu/backends:FuzzVulkanRecord \
                gpu/quant:FuzzDequantize
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; fn=$${t#*:}; \
	  echo "fuzz $$pkg $$fn ($(FUZZTIME))"; \
	  $(FUZZ_GO) test -run='^$$' -fuzz="^$$fn$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=100x ./$$pkg; done

# End-to-end benchmark on a full-size random klein-4B model (created once, ~16 GB, in
# $$XDG_CACHE_HOME/kleinbild/bench): per-phase times, GFLOP/s and peak memory (25-30 min).
bench: build
	LANG=en_US.UTF-8 ./$(BIN) bench --tokenizer ../shared/golden/tokenizer --sizes 256,512 --steps 4 --json bench.json

# Kernel micro-benchmarks (GEMM shapes of the real model, attention) for every backend.
bench-gpu:
	$(GO) test -run='^$$' -bench=. -benchtime=3x ./gpu/cpu/

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet $(PKGS)
	$(GO) run $(STATICCHECK) $(PKGS)

package:
	$(GO) tool fyne package --os linux --name Kleinbild --icon resources/icon.png

# Runs the real app under Xvfb on the tiny model, generates once, captures the real window.
screenshot: build
	rm -f $(SHOT)
	LIBGL_ALWAYS_SOFTWARE=1 LANG=en_US.UTF-8 xvfb-run -a -s "-screen 0 1400x1000x24" \
	  .ci/screenshot.sh ./$(BIN) $(MODEL) $(SHOT)

check-screenshot:
	$(MAKE) screenshot SHOT=$(CURDIR)/.ci-screenshot.png
	$(GO) run .ci/checkpng.go $(CURDIR)/.ci-screenshot.png 1000 700

clean:
	rm -f $(BIN) *.tar.xz .ci-screenshot.png
