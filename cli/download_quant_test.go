package cli

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kleinbild/download"
	"kleinbild/weights/golden"
)

// quantHub serves the three repositories of the Q8_0 assembled klein-4B download with the
// tiny golden model's files (git-stored files: fetched whole, checked by blob id).
func quantHub(t *testing.T) {
	t.Helper()
	base, _ := download.VariantByID("klein-4b")
	v, err := download.AssembledVariant(base, "Q8_0")
	if err != nil {
		t.Fatal(err)
	}
	read := func(rel ...string) []byte {
		b, err := os.ReadFile(golden.Path(t, rel...))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	repos := map[string]map[string][]byte{v.Parts[0].Repo: {}}
	for _, rel := range []string{"model_index.json", "scheduler/scheduler_config.json", "tokenizer/tokenizer.json",
		"tokenizer/tokenizer_config.json", "vae/config.json", "vae/diffusion_pytorch_model.safetensors", "transformer/config.json"} {
		repos[v.Parts[0].Repo][rel] = read("model", "tiny-flux2-klein", rel)
	}
	repos[v.Parts[1].Repo] = map[string][]byte{v.Parts[1].Files[0]: read("gguf", "model", "comfyui", "diffusion_models", "flux-2-klein-tiny-Q8_0-mix.gguf")}
	repos[v.Parts[2].Repo] = map[string][]byte{v.Parts[2].Files[0]: read("gguf", "model", "comfyui", "text_encoders", "qwen3-tiny-Q8_0.gguf")}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for repo, files := range repos {
			if r.URL.Path == "/api/models/"+repo {
				var sibs []map[string]any
				for p, data := range files {
					h := sha1.New()
					fmt.Fprintf(h, "blob %d\x00", len(data))
					h.Write(data)
					sibs = append(sibs, map[string]any{"rfilename": p, "size": len(data), "blobId": hex.EncodeToString(h.Sum(nil))})
				}
				json.NewEncoder(w).Encode(map[string]any{"id": repo, "sha": strings.Repeat("a", 40), "gated": false, "siblings": sibs})
				return
			}
			if p, ok := strings.CutPrefix(r.URL.Path, "/"+repo+"/resolve/main/"); ok && files[p] != nil {
				http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(files[p]))
				return
			}
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("HF_ENDPOINT", srv.URL)
	t.Setenv("HF_TOKEN", "")
	t.Setenv("HF_TOKEN_PATH", filepath.Join(t.TempDir(), "no-token"))
}

// TestDownloadQuant: `download --quant Q8_0` fetches the assembled model, checks it and
// says it is ready; --verify --quant checks it against the three listings; a quantization
// or variant without an assembled download is a usage error (exit 2).
func TestDownloadQuant(t *testing.T) {
	quantHub(t)
	dir := filepath.Join(t.TempDir(), "klein-4b-q8_0")
	code, out, errOut := run(t, "download", "--quant", "q8_0", "-o", dir)
	if code != 0 || !strings.Contains(out, "Model ready: "+dir) {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	for _, want := range []string{"unsloth/FLUX.2-klein-4B-GGUF (flux-2-klein-4b-Q8_0.gguf)", "(VAE, tokenizer)", "8-bit weights"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q: %s", want, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "transformer", "config.json")); err == nil {
		t.Error("the official transformer config was fetched")
	}
	code, out, errOut = run(t, "download", "--verify", "--quant", "Q8_0", "-o", dir)
	if code != 0 || !strings.Contains(out, "OK: ") || !strings.Contains(out, "hashed against the listing") {
		t.Fatalf("verify: exit %d: %s %s", code, out, errOut)
	}
	for _, args := range [][]string{{"--quant", "Q2_K"}, {"--variant", "klein-9b", "--quant", "Q8_0"}} {
		if code, _, errOut := run(t, append(append([]string{"download"}, args...), "-o", dir)...); code != 2 {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
}
