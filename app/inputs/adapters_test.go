package inputs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"kleinbild/app/internal/uitest"
	"kleinbild/app/settings"
	"kleinbild/internal/testfix/metapng"
	"kleinbild/weights/golden"
)

// addAdapter adds the file through the section and waits for it.
func (h *harness) addAdapter(path string) {
	h.t.Helper()
	done := h.adapters.AddFiles([]string{path}, false)
	h.Wait("the adapter to be read", done)
}

// TestAdaptersSection: an added adapter is listed switched on at strength 1; the slider
// and the number field set its strength in the job's request (each following the other),
// a strength outside ±4 is refused with a message, the switch leaves it out, remove
// empties the list; a file that is not an adapter shows an error naming it and adds nothing.
func TestAdaptersSection(t *testing.T) {
	h := newHarness(t, t.TempDir())
	s := &h.adapters
	h.addAdapter(uitest.GoldenLoRA(t, "lora_kohya_r2_a1.safetensors"))
	if len(s.entries) != 1 || len(s.list.Objects) != 1 || s.err.Visible() {
		t.Fatalf("%d entries, %d rows, error %q", len(s.entries), len(s.list.Objects), s.err.Text)
	}
	st := s.Stack()
	if len(st) != 1 || st[0].Strength != 1 || !strings.HasSuffix(st[0].Adapter.Path, "lora_kohya_r2_a1.safetensors") {
		t.Fatalf("stack %+v", st)
	}
	e := s.entries[0]
	e.strength.SetValue(-0.5)
	if st := s.Stack(); len(st) != 1 || st[0].Strength != -0.5 || e.value.Text != "-0.50" || s.Partial() {
		t.Errorf("job adapters %+v (partial %v), field %q", st, s.Partial(), e.value.Text)
	}
	test.Type(e.value, "") // focus
	e.value.SetText("3.25")
	if e.strength.Value != 3.25 || s.Stack()[0].Strength != 3.25 || e.status.Visible() {
		t.Errorf("typed 3.25: slider %v, stack %v, status %q", e.strength.Value, s.Stack()[0].Strength, e.status.Text)
	}
	e.value.SetText("-4.5")
	if e.strength.Value != 3.25 || !e.status.Visible() || !strings.Contains(e.status.Text, "from −4 to 4") {
		t.Errorf("typed -4.5: slider %v, status %q", e.strength.Value, e.status.Text)
	}
	if st := s.Stack(); st[0].Strength != 3.25 {
		t.Errorf("an invalid field changed the strength to %v", st[0].Strength)
	}
	e.value.SetText("−4") // a typographic minus
	if e.strength.Value != -4 || e.status.Visible() {
		t.Errorf("typed −4: slider %v, status %q", e.strength.Value, e.status.Text)
	}
	e.on.SetChecked(false)
	if st := s.Stack(); len(st) != 0 {
		t.Errorf("switched off, the stack still holds %d", len(st))
	}
	s.remove(e)
	if len(s.entries) != 0 || len(s.list.Objects) != 0 || !s.hint.Visible() {
		t.Errorf("after remove: %d entries, %d rows", len(s.entries), len(s.list.Objects))
	}
	bad := filepath.Join(golden.TinyModel(t), "transformer", "config.json")
	h.addAdapter(bad)
	if len(s.entries) != 0 || !s.err.Visible() || !strings.Contains(s.err.Text, "config.json") {
		t.Errorf("bad file: %d entries, error %q", len(s.entries), s.err.Text)
	}
	h.addAdapter(t.TempDir()) // a folder
	if len(s.entries) != 0 || !s.err.Visible() {
		t.Errorf("a folder: %d entries, error %q", len(s.entries), s.err.Text)
	}
}

// TestAdapterChooser: Add… opens Kleinbild's chooser in the LoRA folder, listing the
// adapter files (any case of .safetensors) and folders but not images or other files,
// without thumbnails; the ticked files are added; a typed path of any name is read as an
// adapter by its content.
func TestAdapterChooser(t *testing.T) {
	h := newHarness(t, t.TempDir())
	s := &h.adapters
	dir := t.TempDir()
	a := uitest.WriteLoRA(t, dir, "a.safetensors", nil, "")
	b := uitest.WriteLoRA(t, dir, "B.SafeTensors", map[string]string{"ss_output_name": "b"}, "")
	other := uitest.WriteLoRA(t, t.TempDir(), "weights.bin", nil, "")
	metapng.Write(t, dir, "pic.png", 64, 64, nil)
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.Wait("the folder scan", s.folder.setDir(dir))
	files := adapterFiles()
	for name, want := range map[string]bool{"a.safetensors": true, "B.SafeTensors": true, "pic.png": false, "notes.txt": false, "weights.bin": false} {
		if files.Want(name) != want {
			t.Errorf("the chooser lists %s: %v", name, !want)
		}
	}
	if files.Thumbs || files.One || files.Check != nil {
		t.Errorf("adapter files: %+v", files)
	}
	s.showAdd()
	top := h.win.Canvas().Overlays().Top()
	summary := "2 adapter files, 1 folder. Tick the adapters to add; you can tick files in several folders."
	h.waitFor("the chooser's listing", func() bool {
		return uitest.FindEntry(top, dir) != nil && slices.Contains(uitest.LabelTexts(top), summary)
	})
	list := uitest.FindList(top) // sub, a.safetensors, B.SafeTensors
	list.Select(2)
	list.Select(1)
	test.Tap(uitest.FindButton(top, "Add (2)"))
	h.waitFor("two adapters", func() bool { return len(s.entries) == 2 })
	if s.entries[0].a.Path != b || s.entries[1].a.Path != a {
		t.Errorf("added %s, %s", s.entries[0].a.Path, s.entries[1].a.Path)
	}
	s.showAdd()
	top = h.win.Canvas().Overlays().Top()
	h.waitFor("the chooser's listing", func() bool { return uitest.FindEntry(top, dir) != nil }) // where they came from
	typePath(uitest.FindEntry(top, dir), other)
	h.waitFor("the typed adapter", func() bool { return len(s.entries) == 3 })
}

// TestAdaptersRemembered: the list (files, strengths, switches, accepted partial matches)
// and the LoRA folder come back in the next session; a file gone meanwhile is named.
func TestAdaptersRemembered(t *testing.T) {
	data, tmp := t.TempDir(), t.TempDir()
	gone := uitest.WriteLoRA(t, tmp, "gone.safetensors", nil, "")
	partial := uitest.WriteLoRA(t, tmp, "partial.safetensors", nil, "vector_in.in_layer.lora_down.weight")
	h := newHarness(t, data)
	s := &h.adapters
	h.addAdapter(uitest.GoldenLoRA(t, "lora_kohya_r2_a1.safetensors"))
	h.addAdapter(uitest.GoldenLoRA(t, "lokr_lycoris_f4.safetensors"))
	h.addAdapter(gone)
	h.addAdapter(partial)
	h.TapDialogButton("Use anyway")
	s.entries[0].strength.SetValue(0.75)
	s.entries[0].strength.OnChangeEnded(0.75)
	s.entries[1].on.SetChecked(false)
	h.sh.Settings.LoraDir = tmp // as choose does
	h.sh.Remember(h.sh.Settings)
	h.close()
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}

	h2 := newHarness(t, data)
	s2 := &h2.adapters
	h2.waitFor("the adapters to come back", func() bool { return len(s2.entries) == 3 })
	got := s2.remembered()
	if filepath.Base(got[0].Path) != "lora_kohya_r2_a1.safetensors" || got[0].Strength != 0.75 || got[0].Off ||
		filepath.Base(got[1].Path) != "lokr_lycoris_f4.safetensors" || !got[1].Off ||
		got[2].Path != partial || !got[2].Partial || got[2].Off {
		t.Errorf("remembered %+v", got)
	}
	if st := s2.Stack(); len(st) != 2 || st[0].Strength != 0.75 || !s2.Partial() {
		t.Errorf("stack %+v, partial %v", st, s2.Partial())
	}
	if !s2.err.Visible() || !strings.Contains(s2.err.Text, "gone.safetensors") {
		t.Errorf("missing file not named: %q", s2.err.Text)
	}
	if s2.folder.dir != tmp {
		t.Errorf("LoRA folder %q, want %q", s2.folder.dir, tmp)
	}
	// The file written as the second session ends keeps them for the third (issue 30 item 6:
	// a save during the restore wrote none).
	h2.close()
	saved, err := settings.Load(filepath.Join(data, "settings.json"))
	byName := map[string]settings.Adapter{}
	for _, a := range saved.Adapters {
		byName[filepath.Base(a.Path)] = a
	}
	if k, l, p := byName["lora_kohya_r2_a1.safetensors"], byName["lokr_lycoris_f4.safetensors"], byName["partial.safetensors"]; err != nil ||
		k.Strength != 0.75 || k.Off || !l.Off || !p.Partial || p.Off {
		t.Errorf("settings.json at the end of the second session: %+v, %v", saved.Adapters, err)
	}
}
