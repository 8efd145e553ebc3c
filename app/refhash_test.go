package app

import (
	"context"
	"os"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"

	"kleinbild/engine"
	"kleinbild/engine/imageio"
)

// changingGen is a Generator that changes the file at path while it generates.
type changingGen struct {
	Generator
	path string
}

func (g changingGen) Generate(ctx context.Context, req engine.Request, progress func(engine.Progress)) (*engine.Result, error) {
	f, err := os.OpenFile(g.path, os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		f.Write([]byte("changed")) // trailing bytes: still a PNG, another hash
		f.Close()
	}
	return g.Generator.Generate(ctx, req, progress)
}

// TestReferenceHashedBeforeRun: a run's references are hashed once, before it, and every
// image of the batch records that hash (c20726f hashed them again after each image, so a
// reference changed during the run was recorded as it was afterwards).
func TestReferenceHashedBeforeRun(t *testing.T) {
	dir := t.TempDir()
	ref := writeTestPNG(t, dir, "ref.png", 64, 64, nil)
	sum, err := imageio.SHA256File(ref)
	if err != nil {
		t.Fatal(err)
	}
	fake := newFakeGen()
	open := func(model, device string) (Generator, error) {
		g, err := fake.open(model, device)
		return changingGen{Generator: g, path: ref}, err
	}
	h := newHarness(t, t.TempDir(), tinyModel(t), open)
	defer h.close()
	u := h.ui
	h.drop([]fyne.URI{storage.NewFileURI(ref)})
	u.ctl.Width.SetText("64")
	u.ctl.Height.SetText("64")
	u.ctl.SetCount(2)
	out := h.generate("a reference that changes")
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	if refs := out.Entry.Meta.Sources(); len(refs) != 1 || refs[0].SHA256 != sum {
		t.Errorf("the batch's last image records %+v, want the reference's hash before the run %s", refs, sum)
	}
}
