package modelui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"kleinbild/download"
	"kleinbild/engine"
	"kleinbild/weights/golden"
)

// TestDownloadAssembledChoice: the model manager offers the Q8_0 and Q4_K_M assembled
// downloads right after "FLUX.2-klein-4B (16 GB)", each with its size and a quality line
// under the menu, and downloads the chosen one from its three repositories (the fake Hub)
// into a folder engine.OpenModelSource opens, verified against the downloads' manifests.
func TestDownloadAssembledChoice(t *testing.T) {
	full, _ := download.VariantByID("klein-4b")
	q8, err := download.AssembledVariant(full, "Q8_0")
	if err != nil {
		t.Fatal(err)
	}
	th := newTestHub(t, q8.Repo)
	gguf := map[string]string{
		"transformer":  golden.Path(t, "gguf/model/comfyui/diffusion_models/flux-2-klein-tiny-Q8_0-mix.gguf"),
		"text_encoder": golden.Path(t, "gguf/model/comfyui/text_encoders/qwen3-tiny-Q8_0.gguf"),
	}
	th.more = map[string]map[string][]byte{}
	for _, pt := range q8.Parts[1:] {
		b, err := os.ReadFile(gguf[pt.Dir])
		if err != nil {
			t.Fatal(err)
		}
		th.more[pt.Repo] = map[string][]byte{pt.Files[0]: b}
	}

	data := t.TempDir()
	h := newHarness(t, data, "")
	defer h.close()
	m := h.m
	m.hubOpts = fastHub()
	p, _ := m.NewDownloadPanel() // the setup guide's
	opts := p.variant.Options
	if len(opts) != len(download.Choices()) || !strings.Contains(opts[0], "about 16.0 GB") ||
		!strings.Contains(opts[1], "Q8_0 GGUF · about 8.8 GB") || !strings.Contains(opts[2], "Q4_K_M GGUF · about 5.3 GB") {
		t.Fatalf("menu %q", opts)
	}
	if !strings.Contains(p.note.Text, "16.0 GB") || !strings.Contains(p.note.Text, "reference quality") {
		t.Errorf("note of the full model: %q", p.note.Text)
	}
	p.variant.SetSelectedIndex(2)
	if !strings.Contains(p.note.Text, "5.3 GB") || !strings.Contains(p.note.Text, "4-bit") || p.Dest.Text != filepath.Join(data, "models", "klein-4b-q4_k_m") {
		t.Errorf("Q4_K_M: note %q, destination %q", p.note.Text, p.Dest.Text)
	}
	p.variant.SetSelectedIndex(1)
	dest := filepath.Join(data, "models", "klein-4b-q8_0")
	if !strings.Contains(p.note.Text, "8-bit") || p.Dest.Text != dest {
		t.Fatalf("Q8_0: note %q, destination %q", p.note.Text, p.Dest.Text)
	}

	test.Tap(p.start)
	h.WaitFor("the assembled download to finish", 30*time.Second, func() bool { return m.DL == nil || !m.DL.Running })
	if r := m.DL; r != nil && r.err != nil {
		t.Fatalf("download stopped: %v", r.err)
	}
	src, err := engine.OpenModelSource(dest, engine.Overrides{})
	if err != nil || !src.Info().OK() || len(src.Info().Files) != 2 {
		t.Fatalf("engine: %v %+v", err, src)
	}
	rep, err := download.Validate(context.Background(), dest, download.ValidateOptions{Hash: true})
	if err != nil || !rep.OK() || rep.Hashed == 0 {
		t.Fatalf("validate: %v %+v", err, rep)
	}
	if partialDownload(dest) || startLabel(nil, dest) != "Download" {
		t.Errorf("the finished folder counts as partial")
	}
	// Selecting the folder as the model is the model panel's (engine.Inspect there does not
	// read GGUF component files yet); the folder itself is checked above.
	s := h.sh.Settings
	if s.DownloadVariant != "" && s.DownloadVariant != q8.ID {
		t.Errorf("settings remember %q", s.DownloadVariant)
	}
}
