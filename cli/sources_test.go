package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/engine/imageio"
	"kleinbild/weights"
	"kleinbild/weights/gguf"
	"kleinbild/weights/golden"
)

// comfyModels builds a ComfyUI installation of the golden GGUF files (symlinks): both
// transformer files, the Q8_0 text encoder and the BFL autoencoder under models/.
func comfyModels(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "ComfyUI")
	for _, rel := range []string{"diffusion_models/flux-2-klein-tiny-Q8_0-mix.gguf", "diffusion_models/flux-2-klein-tiny.safetensors",
		"text_encoders/qwen3-tiny-Q8_0.gguf", "vae/flux2-ae-tiny.safetensors"} {
		dst := filepath.Join(root, "models", rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(golden.Path(t, "gguf/model/comfyui", rel), dst); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestGenerateComfyUI generates the golden case t2i_q8mix_teq8 from a ComfyUI folder (GGUF
// transformer and text encoder, BFL VAE, bundled tokenizer): the PNG within one 8-bit level of
// the golden PNG, and its metadata naming the files and their quant types.
func TestGenerateComfyUI(t *testing.T) {
	tmp := t.TempDir()
	out, lat := filepath.Join(tmp, "o.png"), filepath.Join(tmp, "noise.safetensors")
	noise, shape := golden.F32(t, golden.Open(t, "gguf/cases/t2i_q8mix_teq8_48x48_4steps.safetensors"), "initial_latents")
	if err := weights.WriteFile(lat, []weights.OutTensor{{Name: "latents", Shape: shape, F32: noise}}, nil); err != nil {
		t.Fatal(err)
	}
	// The noise [1,128,3,3] sets 48x48, below the -W/-H minimum.
	code, _, errOut := run(t, "generate", "-d", comfyModels(t), "--vae-groups", "8", "-p", "A red cube on a blue table",
		"--latents", lat, "-S", "31", "-o", out, "-q", "--no-cache")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if worst := pngDiff(t, out, golden.Path(t, "gguf/cases/t2i_q8mix_teq8_48x48_4steps.png")); worst > 1 {
		t.Errorf("image differs from the golden PNG by up to %d levels (1 allowed)", worst)
	}
	meta, ok, err := imageio.ReadMetadata(out)
	if err != nil || !ok {
		t.Fatalf("metadata: %v %v", ok, err)
	}
	want := []imageio.ModelFile{
		{Component: "text_encoder", File: "qwen3-tiny-Q8_0.gguf", Types: "Q8_0 x197, F32 x113"},
		{Component: "transformer", File: "flux-2-klein-tiny-Q8_0-mix.gguf", Types: "Q8_0 x19, F32 x12, BF16 x6, Q4_0 x4"},
		{Component: "vae", File: "flux2-ae-tiny.safetensors", Types: "BF16 x250, I64 x1"},
	}
	if len(meta.ModelFiles) != len(want) {
		t.Fatalf("model files %+v", meta.ModelFiles)
	}
	for i := range want {
		if meta.ModelFiles[i] != want[i] {
			t.Errorf("model file %d: %+v, want %+v", i, meta.ModelFiles[i], want[i])
		}
	}
}

// pngDiff is the largest difference of two PNGs' 8-bit RGB values.
func pngDiff(t *testing.T, a, b string) uint32 {
	t.Helper()
	ia, err := imageio.Load(a)
	if err != nil {
		t.Fatal(err)
	}
	ib, err := imageio.Load(b)
	if err != nil {
		t.Fatal(err)
	}
	if ia.Bounds() != ib.Bounds() {
		t.Fatalf("size %v, want %v", ia.Bounds(), ib.Bounds())
	}
	worst := uint32(0)
	for y := ia.Bounds().Min.Y; y < ia.Bounds().Max.Y; y++ {
		for x := ia.Bounds().Min.X; x < ia.Bounds().Max.X; x++ {
			r1, g1, b1, _ := ia.At(x, y).RGBA()
			r2, g2, b2, _ := ib.At(x, y).RGBA()
			worst = max(worst, absDiff(r1, r2)>>8, absDiff(g1, g2)>>8, absDiff(b1, b2)>>8)
		}
	}
	return worst
}

// TestEncodeTextEncoderFile encodes a golden prompt with --text-encoder (the Q8_0 GGUF) over
// the tiny folder: prompt_embeds at rel-L2 1e-5 of gguf/cases/qwen3_q8_0_prompt0.
func TestEncodeTextEncoderFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "e.safetensors")
	code, _, errOut := run(t, "encode", "-d", golden.TinyModel(t), "--text-encoder", golden.Path(t, "gguf/model/comfyui/text_encoders/qwen3-tiny-Q8_0.gguf"),
		"-p", "A red cube on a blue table", "-o", out, "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	f, err := weights.OpenFile(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, _ := golden.F32(t, f, "prompt_embeds")
	want, _ := golden.F32(t, golden.Open(t, "gguf/cases/qwen3_q8_0_prompt0.safetensors"), "prompt_embeds")
	golden.Compare(t, "prompt_embeds", got, want, 1e-5)
}

// TestInfoSources checks info's report of single files and its errors.
func TestInfoSources(t *testing.T) {
	sdcpp := golden.Path(t, "gguf/model/sdcpp/flux-2-klein-tiny-q8_0-q4_k.gguf")
	code, out, errOut := run(t, "info", "-d", golden.TinyModel(t), "--transformer", sdcpp)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, w := range []string{"transformer:  " + sdcpp, "gguf BFL naming, Q8_0 x21, F16 x18, Q4_K x2", "text encoder: " + filepath.Join(golden.TinyModel(t), "text_encoder")} {
		if !strings.Contains(out, w) {
			t.Errorf("info lacks %q:\n%s", w, out)
		}
	}
	code, out, _ = run(t, "info", "-d", sdcpp)
	if code == 0 || !strings.Contains(out, "missing text_encoder (give a file with --text-encoder)") {
		t.Errorf("single transformer file: exit %d:\n%s", code, out)
	}
	code, out, errOut = run(t, "info", "-d", comfyModels(t), "--vae-groups", "8")
	if code != 0 || !strings.Contains(out, "note:") || !strings.Contains(out, "llama.cpp naming, Q8_0 x197, F32 x113") {
		t.Errorf("ComfyUI folder: exit %d: %s\n%s", code, errOut, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"generate", "-d", sdcpp, "--variant", "turbo", "-p", "x", "-o", filepath.Join(t.TempDir(), "o.png")}, "turbo"},
		{[]string{"generate", "-d", sdcpp, "--transformer", sdcpp, "-p", "x", "-o", filepath.Join(t.TempDir(), "o.png")}, "give one"},
		{[]string{"info", "-d", golden.TinyModel(t), "--vae", sdcpp}, "VAE file"},
	} {
		if code, _, errOut := run(t, c.args...); code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d: %s", c.args, code, errOut)
		}
	}
}

// TestInfoDeepSources: info --deep scans a model assembled from files (a GGUF transformer
// among them) as it scans a folder: clean files pass, and a copy of the Q8_0 text encoder
// whose first block scale is NaN is named (its 32 values decode to NaN).
func TestInfoDeepSources(t *testing.T) {
	comfy := comfyModels(t)
	code, out, errOut := run(t, "info", "-d", comfy, "--vae-groups", "8", "--deep")
	if code != 0 || !strings.Contains(out, "scan:     every weight is finite") {
		t.Fatalf("clean ComfyUI folder: exit %d: %s\n%s", code, errOut, out)
	}
	te := golden.Path(t, "gguf/model/comfyui/text_encoders/qwen3-tiny-Q8_0.gguf")
	f, err := gguf.Open(te)
	if err != nil {
		t.Fatal(err)
	}
	var q *gguf.Tensor
	for _, tt := range f.Tensors() {
		if tt.Type == gguf.Q8_0 {
			q = tt
			break
		}
	}
	if q == nil {
		t.Fatal("no Q8_0 tensor in the golden text encoder")
	}
	name, head := q.Name, bytes.Clone(q.Bytes()[:68])
	f.Close()
	raw, err := os.ReadFile(te)
	if err != nil {
		t.Fatal(err)
	}
	off := bytes.Index(raw, head)
	if off < 0 {
		t.Fatalf("%s's blocks not found in the file", name)
	}
	raw[off], raw[off+1] = 0x00, 0x7e // f16 NaN as the first block's scale
	bad := filepath.Join(t.TempDir(), "qwen3-nan.gguf")
	if err := os.WriteFile(bad, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = run(t, "info", "-d", comfy, "--vae-groups", "8", "--text-encoder", bad, "--deep")
	if code == 0 || !strings.Contains(out, "32 non-finite values") || !strings.Contains(errOut, "NaN or Inf") {
		t.Errorf("NaN scale in %s: exit %d: %s\n%s", name, code, errOut, out)
	}
}

// TestTokensSources: tokens on a ComfyUI folder (no tokenizer/ folder) uses the bundled
// tokenizer, which gives the ids the golden tokenizer folder gives.
func TestTokensSources(t *testing.T) {
	_, want, _ := run(t, "tokens", "-d", golden.TinyModel(t), "-p", "a red cube")
	code, got, errOut := run(t, "tokens", "-d", comfyModels(t), "-p", "a red cube")
	if code != 0 || got != want || !strings.Contains(got, "input_ids") {
		t.Errorf("ComfyUI folder: exit %d: %s\ngot  %.120s\nwant %.120s", code, errOut, got, want)
	}
}

// TestBenchTransformerFile benchmarks the tiny folder with a GGUF transformer in place of its
// own: the run completes and the report names the variant the file gives.
func TestBenchTransformerFile(t *testing.T) {
	js := filepath.Join(t.TempDir(), "bench.json")
	code, out, errOut := run(t, "bench", "--model", golden.TinyModel(t), "--transformer", golden.Path(t, "gguf/model/sdcpp/flux-2-klein-tiny-q8_0-q4_k.gguf"),
		"--sizes", "32", "--steps", "1", "--peak-reps", "0", "--json", js, "-q")
	if code != 0 {
		t.Fatalf("bench: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "step 1") || !strings.Contains(out, "custom distilled") {
		t.Errorf("bench table:\n%s", out)
	}
}

// TestRandModelGGUF: randmodel --gguf writes Q8_0-mix files that bench runs in place of the
// folder's transformer and text encoder.
func TestRandModelGGUF(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "model")
	if code, _, errOut := run(t, "randmodel", "-o", dir, "--variant", "tiny", "--gguf", "--tokenizer", golden.TinyModel(t), "-q"); code != 0 {
		t.Fatalf("randmodel: exit %d: %s", code, errOut)
	}
	code, out, errOut := run(t, "bench", "--model", dir, "--transformer", filepath.Join(dir, "gguf", "transformer-Q8_0.gguf"),
		"--text-encoder", filepath.Join(dir, "gguf", "text_encoder-Q8_0.gguf"), "--sizes", "32", "--steps", "1", "--peak-reps", "0", "--json", "", "-q")
	if code != 0 || !strings.Contains(out, "step 1") {
		t.Fatalf("bench: exit %d: %s\n%s", code, errOut, out)
	}
}

// TestRandModelGGUFMix: --gguf-mix Q4_K_M on a complete folder keeps its safetensors (same
// modification time) and writes the Q4_K_M files, which bench runs; an unknown mix is a usage
// error.
func TestRandModelGGUFMix(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "model")
	tok := golden.TinyModel(t)
	if code, _, errOut := run(t, "randmodel", "-o", dir, "--variant", "tiny", "--tokenizer", tok, "-q"); code != 0 {
		t.Fatalf("randmodel: exit %d: %s", code, errOut)
	}
	st := filepath.Join(dir, "transformer", "diffusion_pytorch_model.safetensors")
	before, err := os.Stat(st)
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, "randmodel", "-o", dir, "--variant", "tiny", "--gguf-mix", "q4_k_m", "--tokenizer", tok, "-q"); code != 0 {
		t.Fatalf("randmodel --gguf-mix: exit %d: %s", code, errOut)
	}
	if after, err := os.Stat(st); err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the complete folder was rewritten (%v)", err)
	}
	code, out, errOut := run(t, "bench", "--model", dir, "--transformer", filepath.Join(dir, "gguf", "transformer-Q4_K_M.gguf"),
		"--text-encoder", filepath.Join(dir, "gguf", "text_encoder-Q4_K_M.gguf"), "--sizes", "32", "--steps", "1", "--peak-reps", "0", "--json", "", "-q")
	if code != 0 || !strings.Contains(out, "step 1") {
		t.Fatalf("bench: exit %d: %s\n%s", code, errOut, out)
	}
	if code, _, _ := run(t, "randmodel", "-o", dir, "--variant", "tiny", "--gguf-mix", "Q3_K", "--tokenizer", tok, "-q"); code != 2 {
		t.Errorf("--gguf-mix Q3_K: exit %d, want 2", code)
	}
}
