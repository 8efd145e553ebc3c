package inputs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/internal/uitest"
	"kleinbild/engine"
	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
	"kleinbild/estimate"
	"kleinbild/internal/testfix/metapng"
	"kleinbild/weights/golden"
)

// TestAdapterPartialMatch: an adapter with keys that match nothing asks at once, listing
// the keys; declining leaves it switched off and out of the request; switching it on asks
// again, and accepting puts it in the request with AdaptersPartial set. Without the
// acceptance a run never carries the partial flag.
func TestAdapterPartialMatch(t *testing.T) {
	h := newHarness(t, t.TempDir())
	s := &h.adapters
	path := uitest.WriteLoRA(t, t.TempDir(), "partial.safetensors", nil, "vector_in.in_layer.lora_down.weight")
	h.addAdapter(path)
	top := h.win.Canvas().Overlays().Top()
	if top == nil || !strings.Contains(strings.Join(uitest.LabelTexts(top), "\n"), "vector_in.in_layer.lora_down.weight") {
		t.Fatalf("no dialog listing the unmatched key: %q", uitest.LabelTexts(top))
	}
	h.TapDialogButton("Cancel")
	e := s.entries[0]
	if e.on.Checked || len(s.Stack()) != 0 || s.Partial() || !e.status.Visible() || !strings.Contains(e.status.Text, "only in part") {
		t.Fatalf("declined: on %v, stack %d, partial %v, status %q", e.on.Checked, len(s.Stack()), s.Partial(), e.status.Text)
	}
	test.Tap(e.on)
	if e.on.Checked || h.win.Canvas().Overlays().Top() == nil {
		t.Fatalf("switching on did not ask (on %v)", e.on.Checked)
	}
	h.TapDialogButton("Use anyway")
	if !e.on.Checked || len(s.Stack()) != 1 || !s.Partial() || !strings.Contains(e.status.Text, "accepted") {
		t.Errorf("accepted: on %v, request %d adapters partial %v, status %q", e.on.Checked, len(s.Stack()), s.Partial(), e.status.Text)
	}
	e.on.SetChecked(false)
	h.addAdapter(uitest.GoldenLoRA(t, "lora_kohya_r2_a1.safetensors"))
	if len(s.Stack()) != 1 || s.Partial() {
		t.Errorf("only a full match on: %d adapters, partial %v", len(s.Stack()), s.Partial())
	}
}

// TestAdapterModelFit: with a model's shapes known, adapters are checked against its
// layers: the golden adapters fit the tiny model; one whose shapes fit another model
// cannot be switched on and says which. (Root's TestAdapterMemoryInEstimates checks the
// fit line's estimates.)
func TestAdapterModelFit(t *testing.T) {
	h := newHarness(t, t.TempDir())
	s := &h.adapters
	info, err := engine.Inspect(golden.TinyModel(t))
	if err != nil {
		t.Fatal(err)
	}
	tiny, err := estimate.ForFolder(info)
	if err != nil {
		t.Fatal(err)
	}
	s.SetModel(&tiny)
	h.addAdapter(uitest.GoldenLoRA(t, "lora_bfl_r4_noalpha.safetensors"))
	e := s.entries[0]
	if !e.on.Checked || e.fit != nil || e.status.Visible() || s.layers == nil {
		t.Fatalf("golden adapter on the tiny model: on %v, fit %v", e.on.Checked, e.fit)
	}
	// The same adapter against a model twice as wide: its shapes differ.
	wide := tiny
	wide.Transformer.NumAttentionHeads *= 2
	s.SetModel(&wide)
	if e.on.Checked || e.fit == nil || len(e.fit.Mismatched) == 0 || !strings.Contains(e.status.Text, "cannot be used") {
		t.Fatalf("wider model: on %v, fit %v, status %q", e.on.Checked, e.fit, e.status.Text)
	}
	e.on.SetChecked(true)
	if e.on.Checked || len(s.Stack()) != 0 {
		t.Error("an adapter for another model was switched on")
	}
	s.SetModel(&tiny)
	if e.fit != nil || e.status.Visible() {
		t.Errorf("back on its model: fit %v", e.fit)
	}
}

// TestLoRAFolder: the folder's adapter files are listed with their metadata (name, rank,
// base model, trigger words); bad files (garbage, truncated, a folder named .safetensors,
// a model file) show error rows; the search filters by name and trigger words; the Add
// button of a row adds the adapter.
func TestLoRAFolder(t *testing.T) {
	h := newHarness(t, t.TempDir())
	f := &h.adapters.folder
	dir := t.TempDir()
	uitest.WriteLoRA(t, dir, "watercolor.safetensors", map[string]string{
		"modelspec.title": "Soft Watercolor", "modelspec.architecture": "flux-2-klein-4b", "modelspec.trigger_phrase": "wtrclr, paper texture"}, "")
	uitest.WriteLoRA(t, dir, "pixel.safetensors", map[string]string{
		"ss_output_name": "PixelArt", "ss_base_model_version": "flux2_klein", "ss_tag_frequency": `{"ds": {"pixelart": 9, "sprite": 3}}`}, "")
	full, err := os.ReadFile(filepath.Join(dir, "pixel.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"truncated.safetensors": full[:len(full)/2], "garbage.safetensors": []byte("not a safetensors file at all")} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "folder.safetensors"), 0o755); err != nil {
		t.Fatal(err)
	}
	model, err := os.ReadFile(filepath.Join(golden.TinyModel(t), "vae", "diffusion_pytorch_model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "vae.safetensors"), model, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.Wait("the folder scan", f.setDir(dir))
	if len(f.items) != 6 || len(f.list.Objects) != 6 {
		t.Fatalf("%d items, %d rows; want 6", len(f.items), len(f.list.Objects))
	}
	text := strings.Join(uitest.LabelTexts(f.list), "\n")
	for _, want := range []string{
		"Soft Watercolor", "rank 2", "base model flux-2-klein-4b", "trigger words: wtrclr, paper texture",
		"PixelArt", "base model flux2_klein", "trigger words: pixelart, sprite",
		"truncated.safetensors:", "garbage.safetensors:", "folder.safetensors: a folder", "vae.safetensors: no LoRA or LoKr tensors",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the list lacks %q:\n%s", want, text)
		}
	}
	if n := len(f.hashes()); n != 2 {
		t.Errorf("%d hashes, want the 2 adapters'", n)
	}
	f.search.SetText("PAPER")
	if text := strings.Join(uitest.LabelTexts(f.list), "\n"); len(f.list.Objects) != 1 || !strings.Contains(text, "Soft Watercolor") {
		t.Errorf("search 'PAPER': %q", text)
	}
	f.search.SetText("pixel")
	add := findButtonIcon(f.list)
	if len(f.list.Objects) != 1 || add == nil {
		t.Fatalf("search 'pixel': %d rows", len(f.list.Objects))
	}
	test.Tap(add)
	s := &h.adapters
	h.waitFor("the adapter to be added", func() bool { return len(s.entries) == 1 })
	if filepath.Base(s.entries[0].a.Path) != "pixel.safetensors" {
		t.Errorf("added %s", s.entries[0].a.Path)
	}
	f.search.SetText("nothing-like-this")
	if len(f.list.Objects) != 0 || !strings.Contains(f.msg.Text, "matches") {
		t.Errorf("no match: %d rows, message %q", len(f.list.Objects), f.msg.Text)
	}
	h.Wait("an unreadable folder", f.setDir(filepath.Join(dir, "absent")))
	if !f.msg.Visible() || !strings.Contains(f.msg.Text, "cannot be read") || f.hashes() != nil {
		t.Errorf("absent folder: %q", f.msg.Text)
	}
}

// findButtonIcon returns the first button inside o.
func findButtonIcon(o fyne.CanvasObject) *widget.Button {
	switch v := o.(type) {
	case *widget.Button:
		return v
	case *fyne.Container:
		for _, c := range v.Objects {
			if b := findButtonIcon(c); b != nil {
				return b
			}
		}
	}
	return nil
}

// TestDropAdapters: dropped files are told apart by content: an adapter named like an
// image and one without an extension join the Adapters section, a PNG named .safetensors
// does not, and an image dropped with them becomes a reference.
func TestDropAdapters(t *testing.T) {
	h := newHarness(t, t.TempDir())
	dir := t.TempDir()
	a1 := uitest.WriteLoRA(t, dir, "style.png", nil, "")
	a2 := uitest.WriteLoRA(t, dir, "noext", map[string]string{"modelspec.title": "no extension"}, "")
	fake := metapng.Write(t, dir, "picture.safetensors", 64, 64, nil)
	img := metapng.Write(t, dir, "ref.png", 64, 64, nil)
	var uris []fyne.URI
	for _, p := range []string{a1, img, a2, fake} {
		uris = append(uris, storage.NewFileURI(p))
	}
	h.Wait("the drop", h.drop(uris))
	s := &h.adapters
	if len(s.entries) != 2 || filepath.Base(s.entries[0].a.Path) != "style.png" || filepath.Base(s.entries[1].a.Path) != "noext" {
		t.Errorf("%d adapters", len(s.entries))
	}
	if len(h.refs.paths) != 1 || h.refs.paths[0] != img {
		t.Errorf("references %q", h.refs.paths)
	}
	if msg := h.sh.ErrorText(); !strings.Contains(msg, "picture.safetensors") {
		t.Errorf("the PNG named .safetensors is not reported: %q", msg)
	}
	// A Kleinbild PNG naming adapters: the restore question names them, and restoring finds
	// them in the LoRA folder by hash.
	sum, err := imageio.SHA256File(a2)
	if err != nil {
		t.Fatal(err)
	}
	h.Wait("the folder scan", s.folder.setDir(dir))
	made := metapng.Write(t, t.TempDir(), "made.png", 64, 64, &imageio.Metadata{
		Settings: schema.Settings{Prompt: "p", Width: 64, Height: 64, Steps: 2},
		Adapters: []imageio.Adapter{{File: "was-named-so.safetensors", SHA256: sum, Strength: 0.5}},
	})
	s.entries[1].on.SetChecked(false)
	h.Wait("the PNG drop", h.drop([]fyne.URI{storage.NewFileURI(made)}))
	if top := h.win.Canvas().Overlays().Top(); top == nil || !strings.Contains(strings.Join(uitest.LabelTexts(top), "\n"), "Adapters: was-named-so.safetensors (0.50)") {
		t.Fatalf("the restore question does not name the adapter: %q", uitest.LabelTexts(top))
	}
	h.TapDialogButton("Restore settings")
	h.waitFor("the adapters restored", func() bool { st := s.Stack(); return len(st) == 1 && st[0].Strength == 0.5 })
	if st := s.Stack(); st[0].Adapter.Path != a2 {
		t.Errorf("restored %s", st[0].Adapter.Path)
	}
	for p, want := range map[string]bool{a1: true, a2: true, fake: false, img: false, dir: false, filepath.Join(dir, "absent"): false} {
		if isSafetensors(p) != want {
			t.Errorf("isSafetensors(%s) = %v", p, !want)
		}
	}
}

// TestRestoreAdaptersFromImage: restoring an image's settings finds its adapters by SHA-256
// in the LoRA folder (under any name), sets their strengths, and names the ones not found;
// an image made without adapters switches the list's off.
func TestRestoreAdaptersFromImage(t *testing.T) {
	h := newHarness(t, t.TempDir())
	s := &h.adapters
	dir := t.TempDir()
	p := uitest.WriteLoRA(t, dir, "renamed.safetensors", map[string]string{"modelspec.title": "x"}, "")
	sum, err := imageio.SHA256File(p)
	if err != nil {
		t.Fatal(err)
	}
	h.Wait("the folder scan", s.folder.setDir(dir))
	h.addAdapter(uitest.GoldenLoRA(t, "lokr_lycoris_f4.safetensors")) // switched off by the restore
	meta := imageio.Metadata{
		Settings: schema.Settings{Prompt: "a fox", Width: 64, Height: 64, Steps: 2, Seed: 3},
		Adapters: []imageio.Adapter{
			{File: "original.safetensors", SHA256: sum, Strength: -0.7},
			{File: "lost.safetensors", SHA256: strings.Repeat("0", 64), Strength: 1},
		},
	}
	h.Wait("the restore", s.RestoreFromImage(meta.Adapters))
	if len(s.entries) != 2 || s.entries[0].on.Checked || s.entries[1].a.Path != p || strengthOf(s.entries[1]) != -0.7 || !s.entries[1].on.Checked {
		t.Fatalf("restored %+v", s.remembered())
	}
	if msg := h.sh.ErrorText(); !strings.Contains(msg, "lost.safetensors") || strings.Contains(msg, "original.safetensors") {
		t.Errorf("notice %q", msg)
	}
	// Again without a finished scan (as Reuse settings can come): the folder is hashed.
	s.folder.scanned = false
	s.entries[1].on.SetChecked(false) // listed already: switched on again at the image's strength
	s.setStrength(s.entries[1], 2)
	s.entries[0].on.SetChecked(true)
	h.sh.Banner.Hide()
	h.Wait("the restore", s.RestoreFromImage(meta.Adapters))
	if !strings.Contains(h.sh.ErrorText(), "Restored 1 adapter") {
		t.Errorf("notice %q", h.sh.ErrorText())
	}
	if st := s.Stack(); len(s.entries) != 2 || len(st) != 1 || st[0].Adapter.Path != p || st[0].Strength != -0.7 {
		t.Errorf("RestoreFromImage: %+v", s.remembered())
	}
	h.Wait("no adapters", s.RestoreFromImage(nil))
	if len(s.entries) != 2 || len(s.Stack()) != 0 {
		t.Errorf("an image without adapters left %d on", len(s.Stack()))
	}
}

// drop drops files onto the window as it hands them on: adapter files to the Adapters
// section, the rest to the references.
func (h *harness) drop(uris []fyne.URI) <-chan struct{} {
	var paths []string
	for _, u := range uris {
		paths = append(paths, u.Path())
	}
	return h.adapters.DropAdapters(paths, nil, h.refs.DropImages)
}
