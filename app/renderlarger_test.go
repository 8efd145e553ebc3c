package app

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/widgets"
)

// Issue 12: "Render larger" on a gallery image queues (while another runs) a job at twice
// the area with the same prompt, seed, steps and guidance, and the image itself and its
// references that still exist as references.
func TestRenderLargerQueuesTheImage(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	refDir := t.TempDir()
	ref := writeTestPNG(t, refDir, "ref.png", 64, 64, nil)
	u.AddReference(ref)
	if len(u.refs.RefPaths()) != 1 {
		t.Fatalf("reference not added: %q", u.ErrorText())
	}
	lockSeed(u, 4242)
	u.ctl.SetSize(256, 192)
	u.ctl.Steps.SetText("3")
	out := h.generate("a lighthouse at dusk")
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	src := out.Entry
	<-fake.started // the first run's

	// A second run blocks, so the render-larger job waits in the queue.
	fake.block = true
	u.refs.Remove(ref)
	u.ctl.Prompt.SetText("something else")
	test.Tap(u.ctl.Generate)
	waitStarted(t, h, fake)
	u.gal.SelectEntry(src.File, nil)
	btn := findIconButton(u.view.Actions, theme.ZoomInIcon().Name())
	if btn == nil {
		t.Fatal("the viewer has no 'Render larger' button")
	}
	test.Tap(btn)
	if len(u.run.Queue.Jobs) != 1 {
		t.Fatalf("%d jobs queued, want 1", len(u.run.Queue.Jobs))
	}
	j := u.run.Queue.Jobs[0]
	r := j.Req
	if r.Width != 368 || r.Height != 272 || r.Seed != 4242 || r.Prompt != "a lighthouse at dusk" || r.Steps != 3 || j.Count != 1 {
		t.Errorf("queued request %+v (count %d)", r, j.Count)
	}
	if len(r.References) != 2 || r.References[0] != u.Gallery.Path(src) || r.References[1] != ref {
		t.Errorf("references %v, want [%s %s]", r.References, u.Gallery.Path(src), ref)
	}
	if r.Guidance != src.Meta.Guidance && !u.model.ModelInfo().Distilled {
		t.Errorf("guidance %v, image had %v", r.Guidance, src.Meta.Guidance)
	}

	// Once the running job is cancelled, the queued one runs with that request.
	test.Tap(u.ctl.Generate)
	waitStarted(t, h, fake)
	if got := fake.lastRequest(); got.Width != 368 || got.Seed != 4242 || len(got.References) != 2 || got.References[0] != u.Gallery.Path(src) {
		t.Errorf("generator got %+v", got)
	}
	test.Tap(u.ctl.Generate)
	h.waitFor("the run to stop", 5*time.Second, func() bool { return u.run.Current() == nil })
}

// findIconButton returns the button with the icon named icon inside o.
func findIconButton(o fyne.CanvasObject, icon string) *widget.Button {
	switch v := o.(type) {
	case *widgets.TipButton:
		if v.Icon != nil && v.Icon.Name() == icon {
			return &v.Button
		}
	case *widget.Button:
		if v.Icon != nil && v.Icon.Name() == icon {
			return v
		}
	case *fyne.Container:
		for _, c := range v.Objects {
			if b := findIconButton(c, icon); b != nil {
				return b
			}
		}
	}
	return nil
}
