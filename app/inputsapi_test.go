package app

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"kleinbild/app/gallery"
	"kleinbild/app/galleryui"
	"kleinbild/app/jobs"
	"kleinbild/app/widgets"
	"kleinbild/engine"
	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

// TestAdapterMemoryInEstimates: the model's shapes reach the Adapters section, which
// switches off an adapter made for another model; the fit line's estimate and a queued
// job's count the memory of the adapters switched on.
func TestAdapterMemoryInEstimates(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), nil)
	u := h.ui
	h.waitFor("the model's shapes", 10*time.Second, func() bool { return u.fit.Model != nil })
	before, ok := u.fit.Estimate()
	if !ok {
		t.Fatal("no estimate")
	}
	h.addAdapter(goldenLoRA(t, "lora_bfl_r4_noalpha.safetensors"))
	st := u.adapters.Stack()
	on := findCheck(h.win.Canvas().Content(), "lora_bfl_")
	if len(st) != 1 || on == nil || !on.Checked {
		t.Fatalf("golden adapter on the tiny model: stack %+v", st)
	}
	a := st[0].Adapter
	after, _ := u.fit.Estimate()
	if got, want := after.PeakBytes-before.PeakBytes, a.Bytes(); got != want {
		t.Errorf("the estimate grew by %d bytes with the adapter, want its %d", got, want)
	}
	with, _ := u.fit.EstimateJob(u.run.JobFromForm(jobs.Form{Settings: engine.Settings{Prompt: "x", Width: 64, Height: 64}, Count: 1}))
	on.SetChecked(false)
	without, _ := u.fit.EstimateJob(u.run.JobFromForm(jobs.Form{Settings: engine.Settings{Prompt: "x", Width: 64, Height: 64}, Count: 1}))
	on.SetChecked(true)
	if got, want := with.PeakBytes-without.PeakBytes, a.Bytes(); got != want {
		t.Errorf("a queued job's estimate grew by %d bytes with the adapter, want %d", got, want)
	}
	// The same adapter against a model twice as wide: its shapes differ.
	wide := *u.fit.Model
	wide.Transformer.NumAttentionHeads *= 2
	u.fit.ShapesChanged(&wide)
	if on.Checked || len(u.adapters.Stack()) != 0 {
		t.Errorf("wider model: on %v, stack %+v", on.Checked, u.adapters.Stack())
	}
	u.fit.ShapesChanged(u.fit.Model)
	on.SetChecked(true)
	if len(u.adapters.Stack()) != 1 {
		t.Error("back on its model, the adapter cannot be switched on")
	}
}

// TestRestoreSettingsRestoresAdapters: restoring an image's settings (Reuse settings)
// finds its adapters by SHA-256 in the LoRA folder, hashed when its scan has not finished,
// and names the ones not found; the gallery's details name them.
func TestRestoreSettingsRestoresAdapters(t *testing.T) {
	h := newHarness(t, t.TempDir(), "", nil)
	u := h.ui
	dir := t.TempDir()
	p := writeLoRA(t, dir, "renamed.safetensors", map[string]string{"modelspec.title": "x"}, "")
	sum, err := imageio.SHA256File(p)
	if err != nil {
		t.Fatal(err)
	}
	u.Settings.LoraDir = dir
	u.adapters.ApplySettings(u.Settings) // the LoRA folder, as the window opens with it
	meta := imageio.Metadata{
		Settings: schema.Settings{Prompt: "a fox", Width: 64, Height: 64, Steps: 2, Seed: 3},
		Adapters: []imageio.Adapter{
			{File: "original.safetensors", SHA256: sum, Strength: -0.7},
			{File: "lost.safetensors", SHA256: strings.Repeat("0", 64), Strength: 1},
		},
	}
	u.RestoreSettings(meta)
	h.waitFor("the restore", 10*time.Second, func() bool { return strings.Contains(u.ErrorText(), "Restored 1 adapter") })
	if st := u.adapters.Stack(); len(st) != 1 || st[0].Adapter.Path != p || st[0].Strength != -0.7 {
		t.Errorf("RestoreSettings: %+v", st)
	}
	if msg := u.ErrorText(); !strings.Contains(msg, "lost.safetensors") || strings.Contains(msg, "original.safetensors") {
		t.Errorf("notice %q", msg)
	}
	if d := galleryui.DescribeEntry(gallery.Entry{HasMeta: true, Meta: meta}); !strings.Contains(d, "Adapters: original.safetensors (-0.70), lost.safetensors (1.00)") {
		t.Errorf("details %q", d)
	}
}

// findShortcutEntry returns the first text field inside o that shows text or has it as
// its placeholder, or nil.
func findShortcutEntry(o fyne.CanvasObject, text string) *widgets.ShortcutEntry {
	switch v := o.(type) {
	case *widgets.ShortcutEntry:
		if v.Text == text || v.PlaceHolder == text {
			return v
		}
	case *fyne.Container:
		for _, c := range v.Objects {
			if e := findShortcutEntry(c, text); e != nil {
				return e
			}
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(v).Objects() {
			if e := findShortcutEntry(c, text); e != nil {
				return e
			}
		}
	}
	return nil
}

// findTipButtons returns the buttons with the tooltip tip inside o, in the tree's order.
func findTipButtons(o fyne.CanvasObject, tip string) []*widgets.TipButton {
	switch v := o.(type) {
	case *widgets.TipButton:
		if v.Tip == tip {
			return []*widgets.TipButton{v}
		}
	case *fyne.Container:
		var out []*widgets.TipButton
		for _, c := range v.Objects {
			out = append(out, findTipButtons(c, tip)...)
		}
		return out
	case fyne.Widget:
		var out []*widgets.TipButton
		for _, c := range test.WidgetRenderer(v).Objects() {
			out = append(out, findTipButtons(c, tip)...)
		}
		return out
	}
	return nil
}
