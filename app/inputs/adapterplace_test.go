package inputs

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
)

// Issue 28 item 10: adding an adapter from the LoRA folder's list keeps that list where it
// is on screen (the Adapters list above it grew and moved it under the pointer).
func TestFolderListStaysUnderThePointer(t *testing.T) {
	h := newHarness(t, t.TempDir())
	h.win.Resize(fyne.NewSize(1366, 300)) // the form is taller than its room, as on a laptop
	dir := t.TempDir()
	writeLoRA(t, dir, "a.safetensors", nil, "")
	writeLoRA(t, dir, "b.safetensors", map[string]string{"modelspec.title": "B"}, "")
	f := &h.adapters.folder
	h.wait("the folder scan", f.setDir(dir))
	if len(f.list.Objects) != 2 {
		t.Fatalf("%d rows", len(f.list.Objects))
	}
	root := h.win.Canvas().Content()
	relayout(root)
	h.scroll.ScrollToBottom()
	relayout(root)
	add := findButtonIcon(f.list.Objects[1])
	before, _, ok := shownRect(root, add)
	if !ok {
		t.Fatal("the second row's Add is not shown")
	}
	test.Tap(findButtonIcon(f.list.Objects[0]))
	h.waitFor("the adapter", func() bool { return len(h.adapters.entries) == 1 })
	h.settle()
	relayout(root)
	after, _, _ := shownRect(root, add)
	if d := after.Y - before.Y; d > 1 || d < -1 {
		t.Errorf("the folder's list moved by %.0f px (from %v to %v)", d, before, after)
	}
}

// shownRect is where target is drawn inside root, clipped by the scroll containers around
// it; ok is false when target is not in root or is hidden.
func shownRect(root, target fyne.CanvasObject) (pos fyne.Position, size fyne.Size, ok bool) {
	type rect struct{ x0, y0, x1, y1 float32 }
	var walk func(o fyne.CanvasObject, at fyne.Position, clip rect) (rect, bool)
	walk = func(o fyne.CanvasObject, at fyne.Position, clip rect) (rect, bool) {
		if !o.Visible() {
			return rect{}, false
		}
		p := at.Add(o.Position())
		r := rect{p.X, p.Y, p.X + o.Size().Width, p.Y + o.Size().Height}
		if o == target {
			return rect{max(r.x0, clip.x0), max(r.y0, clip.y0), min(r.x1, clip.x1), min(r.y1, clip.y1)}, true
		}
		if _, isScroll := o.(*container.Scroll); isScroll {
			clip = rect{max(r.x0, clip.x0), max(r.y0, clip.y0), min(r.x1, clip.x1), min(r.y1, clip.y1)}
		}
		var kids []fyne.CanvasObject
		switch v := o.(type) {
		case *fyne.Container:
			kids = v.Objects
		case fyne.Widget:
			kids = test.WidgetRenderer(v).Objects()
		}
		for _, k := range kids {
			if got, found := walk(k, p, clip); found {
				return got, true
			}
		}
		return rect{}, false
	}
	big := float32(1e9)
	r, found := walk(root, fyne.Position{}, rect{-big, -big, big, big})
	if !found {
		return fyne.Position{}, fyne.Size{}, false
	}
	return fyne.NewPos(r.x0, r.y0), fyne.NewSize(max(0, r.x1-r.x0), max(0, r.y1-r.y0)), true
}

// relayout lays out o and everything in it at their current sizes, top down, as a real
// window does before drawing when minimum sizes have changed.
func relayout(o fyne.CanvasObject) {
	if !o.Visible() {
		return
	}
	var kids []fyne.CanvasObject
	switch v := o.(type) {
	case *fyne.Container:
		if v.Layout != nil {
			v.Layout.Layout(v.Objects, v.Size())
		}
		kids = v.Objects
	case fyne.Widget:
		r := test.WidgetRenderer(v)
		r.Layout(v.Size())
		kids = r.Objects()
	}
	for _, k := range kids {
		relayout(k)
	}
}
