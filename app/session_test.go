package app

import (
	"os"
	"slices"
	"testing"
	"time"
)

// TestReferencesAndViewedImageSurviveRestart: the references and the gallery image in
// the viewer are back after a restart; a reference deleted meanwhile is left out, saying so.
func TestReferencesAndViewedImageSurviveRestart(t *testing.T) {
	data, model := t.TempDir(), tinyModel(t)
	fake := newFakeGen()
	h := newHarness(t, data, model, fake.open)
	u := h.ui
	u.ctl.SetSize(64, 64)
	refDir := t.TempDir()
	refs := []string{writeTestPNG(t, refDir, "a.png", 64, 64, nil), writeTestPNG(t, refDir, "b.png", 80, 64, nil)}
	for _, p := range refs {
		if err := u.refs.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"first", "second"} {
		if out := h.generate(p); out.Err != nil {
			t.Fatal(out.Err)
		}
	}
	older := u.gal.Visible[1].File
	u.gal.SelectEntry(older, nil)
	h.settle()
	h.close()

	h2 := newHarness(t, data, model, fake.open)
	h2.waitFor("the last image viewed", 5*time.Second, func() bool { return h2.ui.view.ShownOK })
	if got := h2.ui.refs.RefPaths(); !slices.Equal(got, refs) {
		t.Fatalf("references after restart %q, want %q", got, refs)
	}
	if got := h2.ui.view.Shown.File; got != older {
		t.Fatalf("viewer shows %q after restart, want %q", got, older)
	}
	h2.close()

	os.Remove(refs[0])
	h3 := newHarness(t, data, model, fake.open)
	if got := h3.ui.refs.RefPaths(); !slices.Equal(got, refs[1:]) || h3.ui.Status.Text == "" {
		t.Fatalf("with a.png deleted: references %q, status %q", got, h3.ui.Status.Text)
	}
}
