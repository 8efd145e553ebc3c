package cli

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/engine/imageio"
	"kleinbild/weights"
	"kleinbild/weights/golden"
)

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = Run(args, &o, &e)
	return code, o.String(), e.String()
}

func TestTokensMatchesGolden(t *testing.T) {
	code, out, errOut := run(t, "tokens", "-d", golden.TinyModel(t), "-p", "A red cube on a blue table")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		InputIDs      []int64 `json:"input_ids"`
		AttentionMask []int64 `json:"attention_mask"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not the JSON format: %v\n%s", err, out)
	}
	f := golden.Open(t, "qwen3/qwen3_prompt0.safetensors")
	ids, _ := golden.I64(t, f, "input_ids")
	mask, _ := golden.I64(t, f, "attention_mask")
	if len(got.InputIDs) != 512 || len(got.AttentionMask) != 512 {
		t.Fatalf("lengths %d, %d; want 512", len(got.InputIDs), len(got.AttentionMask))
	}
	for i := range ids {
		if got.InputIDs[i] != ids[i] || got.AttentionMask[i] != mask[i] {
			t.Fatalf("position %d: id %d mask %d, want %d %d", i, got.InputIDs[i], got.AttentionMask[i], ids[i], mask[i])
		}
	}
}

func TestEncodeMatchesGolden(t *testing.T) {
	out := filepath.Join(t.TempDir(), "emb.safetensors")
	code, _, errOut := run(t, "encode", "-d", golden.TinyModel(t), "-p", "A red cube on a blue table", "-o", out, "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	f, err := weights.OpenFile(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, shape := golden.F32(t, f, "prompt_embeds")
	if len(shape) != 3 || shape[0] != 1 || shape[1] != 512 || shape[2] != 96 {
		t.Fatalf("shape %v, want [1 512 96]", shape)
	}
	want, _ := golden.F32(t, golden.Open(t, "qwen3/qwen3_prompt0.safetensors"), "prompt_embeds")
	golden.Compare(t, "encode prompt_embeds", got, want, 1e-5)
}

// TestGenerateReproducesGolden is the acceptance check: the CLI reproduces
// pipeline/t2i_distilled_48x80_4steps from its stored latents and prompt.
func TestGenerateReproducesGolden(t *testing.T) {
	tmp := t.TempDir()
	g := golden.Open(t, "pipeline/t2i_distilled_48x80_4steps.safetensors")
	lat, shape := golden.F32(t, g, "initial_latents")
	latPath := filepath.Join(tmp, "noise.safetensors")
	if err := weights.WriteFile(latPath, []weights.OutTensor{{Name: "latents", Shape: shape, F32: lat}}, nil); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out.png")
	dump := filepath.Join(tmp, "dump")
	code, stdout, errOut := run(t, "generate", "-d", golden.TinyModel(t), "-p", "A red cube on a blue table",
		"-S", "7", "--latents", latPath, "--dump", dump, "-o", out, "-q", "--no-cache") // the noise [1,128,3,5] sets 80×48, below the -W/-H minimum
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(stdout, "Seed: 7") {
		t.Errorf("seed not printed: %q", stdout)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	wantImg, err := os.Open(golden.Path(t, "pipeline", "t2i_distilled_48x80_4steps.png"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := png.Decode(wantImg)
	wantImg.Close()
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds() != want.Bounds() {
		t.Fatalf("size %v, want %v", img.Bounds(), want.Bounds())
	}
	worst := uint32(0)
	for y := 0; y < want.Bounds().Dy(); y++ {
		for x := 0; x < want.Bounds().Dx(); x++ {
			r1, g1, b1, _ := img.At(x, y).RGBA()
			r2, g2, b2, _ := want.At(x, y).RGBA()
			for _, d := range []uint32{absDiff(r1, r2), absDiff(g1, g2), absDiff(b1, b2)} {
				worst = max(worst, d>>8)
			}
		}
	}
	t.Logf("PNG differs from the reference by at most %d levels", worst)
	if worst > 1 {
		t.Errorf("PNG differs by %d levels", worst)
	}
	meta, ok, err := imageio.ReadMetadata(out)
	if err != nil || !ok {
		t.Fatalf("metadata: ok=%v err=%v", ok, err)
	}
	if meta.Prompt != "A red cube on a blue table" || meta.Seed != 7 || meta.Width != 80 || meta.Height != 48 || meta.Steps != 4 {
		t.Errorf("metadata %+v", meta)
	}
	// --dump: one float32 file per tensor, named after it, with the documented shapes.
	wantShapes := map[string][]int{
		"prompt_embeds": {1, 512, 96}, "latents_init": {1, 128, 3, 5}, "latents_step0": {1, 128, 3, 5},
		"latents_step3": {1, 128, 3, 5}, "latents_final": {1, 128, 3, 5}, "image": {1, 3, 48, 80},
	}
	for name, s := range wantShapes {
		f, err := weights.OpenFile(filepath.Join(dump, name+".safetensors"))
		if err != nil {
			t.Fatal(err)
		}
		tn, err := f.Tensor(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := tn.CheckShape(s...); err != nil || tn.DType != weights.F32 {
			t.Errorf("dump %s: %v (dtype %s)", name, err, tn.DType)
		}
		f.Close()
	}
	final, _ := golden.F32(t, golden.Open(t, "pipeline/t2i_distilled_48x80_4steps.safetensors"), "vae_decode_output")
	df, err := weights.OpenFile(filepath.Join(dump, "image.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	defer df.Close()
	got, _ := golden.F32(t, df, "image")
	golden.Compare(t, "dumped image", got, final, 1e-5)
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

func TestGenerateBadInputs(t *testing.T) {
	tmp := t.TempDir()
	out := filepath.Join(tmp, "out.png")
	tiny := golden.TinyModel(t)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no model", []string{"-p", "x", "-o", out}, 2, "-d MODEL_DIR"},
		{"size out of range", []string{"-d", tiny, "-p", "x", "-W", "8", "-o", out}, 2, "out of range"},
		{"huge size", []string{"-d", tiny, "-p", "x", "-H", "99999", "-o", out}, 2, "out of range"},
		{"missing model", []string{"-d", filepath.Join(tmp, "nope"), "-p", "x", "-o", out}, 1, "nope"},
		{"missing output folder", []string{"-d", tiny, "-p", "x", "-o", filepath.Join(tmp, "no", "dir", "o.png")}, 1, "output folder"},
		{"unreadable reference", []string{"-d", tiny, "-p", "x", "-i", filepath.Join(tmp, "missing.png"), "-o", out}, 1, "missing.png"},
		{"both schedules", []string{"-d", tiny, "-p", "x", "--linear", "--power", "-o", out}, 2, "exclude"},
		{"bad latents file", []string{"-d", tiny, "-p", "x", "--latents", filepath.Join(tmp, "none.safetensors"), "-o", out}, 1, "none.safetensors"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := run(t, append([]string{"generate"}, c.args...)...)
			if code != c.code || !strings.Contains(errOut, c.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d mentioning %q", code, errOut, c.code, c.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Fatal("a failed run left an output file")
			}
		})
	}
	if code, _, _ := run(t, "frobnicate"); code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
}

func TestInfo(t *testing.T) {
	code, out, errOut := run(t, "info", "-d", golden.TinyModel(t))
	if code != 0 || !strings.Contains(out, "distilled") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	code, _, errOut = run(t, "info", "-d", t.TempDir())
	if code != 1 || !strings.Contains(errOut, "model_index.json") {
		t.Fatalf("empty folder: exit %d: %s", code, errOut)
	}
}

func TestInfoFindsTruncatedWeights(t *testing.T) {
	dir := t.TempDir()
	tiny := golden.TinyModel(t)
	for _, rel := range []string{"model_index.json", "scheduler/scheduler_config.json", "text_encoder/config.json",
		"text_encoder/model.safetensors", "tokenizer/tokenizer.json", "tokenizer/tokenizer_config.json",
		"transformer/config.json", "transformer/diffusion_pytorch_model.safetensors", "vae/config.json",
		"vae/diffusion_pytorch_model.safetensors"} {
		raw, err := os.ReadFile(filepath.Join(tiny, rel))
		if err != nil {
			t.Fatal(err)
		}
		if rel == "vae/diffusion_pytorch_model.safetensors" {
			raw = raw[:len(raw)/2]
		}
		os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, rel), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := run(t, "info", "-d", dir)
	if code != 1 || !strings.Contains(out+errOut, "vae/diffusion_pytorch_model.safetensors") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
}

func TestGenerateUnknownBackend(t *testing.T) {
	out := filepath.Join(t.TempDir(), "o.png")
	code, _, errOut := run(t, "generate", "-d", golden.TinyModel(t), "-p", "x", "--backend", "abacus", "-o", out)
	if code != 2 || !strings.Contains(errOut, "abacus") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}
