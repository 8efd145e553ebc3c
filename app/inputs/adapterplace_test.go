package inputs

import (
	"kleinbild/app/internal/uitest"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// Issue 28 item 10: adding an adapter from the LoRA folder's list keeps that list where it
// is on screen (the Adapters list above it grew and moved it under the pointer).
func TestFolderListStaysUnderThePointer(t *testing.T) {
	h := newHarness(t, t.TempDir())
	h.win.Resize(fyne.NewSize(1366, 300)) // the form is taller than its room, as on a laptop
	dir := t.TempDir()
	uitest.WriteLoRA(t, dir, "a.safetensors", nil, "")
	uitest.WriteLoRA(t, dir, "b.safetensors", map[string]string{"modelspec.title": "B"}, "")
	f := &h.adapters.folder
	h.Wait("the folder scan", f.setDir(dir))
	if len(f.list.Objects) != 2 {
		t.Fatalf("%d rows", len(f.list.Objects))
	}
	root := h.win.Canvas().Content()
	uitest.Relayout(root)
	h.scroll.ScrollToBottom()
	uitest.Relayout(root)
	add := findButtonIcon(f.list.Objects[1])
	before, _, ok := uitest.ShownRect(root, add)
	if !ok {
		t.Fatal("the second row's Add is not shown")
	}
	test.Tap(findButtonIcon(f.list.Objects[0]))
	h.waitFor("the adapter", func() bool { return len(h.adapters.entries) == 1 })
	h.Settle()
	uitest.Relayout(root)
	after, _, _ := uitest.ShownRect(root, add)
	if d := after.Y - before.Y; d > 1 || d < -1 {
		t.Errorf("the folder's list moved by %.0f px (from %v to %v)", d, before, after)
	}
}
