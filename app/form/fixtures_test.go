package form

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"kleinbild/app/internal/uitest"
	"kleinbild/app/shell"
	"kleinbild/app/widgets"
	"kleinbild/engine"
	"kleinbild/engine/lora"
	"kleinbild/estimate"
	"kleinbild/gpu/backends"
	"kleinbild/weights/golden"
)

// chosenModel is a ChosenModel of the given folder and info.
type chosenModel struct {
	dir  string
	info engine.ModelInfo
}

func (m chosenModel) ModelDir() string            { return m.dir }
func (m chosenModel) ModelInfo() engine.ModelInfo { return m.info }

// fitModel is a FitModel with no usable model; choice is the device the user chose ("":
// the automatic choice).
type fitModel struct{ choice string }

func (fitModel) ModelKey() string                         { return "" }
func (fitModel) UsableSource() engine.Source              { return nil }
func (m fitModel) EffectiveDevice() string                { return m.choice }
func (m fitModel) DeviceChoice() string                   { return m.choice }
func (fitModel) DeviceFor(string) (backends.Device, bool) { return backends.Device{}, false }

// findTipButton is the icon button with tooltip tip inside o, or nil.
func findTipButton(o fyne.CanvasObject, tip string) *widgets.TipButton {
	switch v := o.(type) {
	case *widgets.TipButton:
		if v.Tip == tip {
			return v
		}
	case *fyne.Container:
		for _, c := range v.Objects {
			if b := findTipButton(c, tip); b != nil {
				return b
			}
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(v).Objects() {
			if b := findTipButton(c, tip); b != nil {
				return b
			}
		}
	}
	return nil
}

// tapDialogButton taps the button labelled text of the dialog on top of w.
func tapDialogButton(t *testing.T, w fyne.Window, text string) {
	t.Helper()
	top := w.Canvas().Overlays().Top()
	if top == nil {
		t.Fatalf("no dialog is open (wanted button %q)", text)
	}
	b := uitest.FindButton(top, text)
	if b == nil {
		t.Fatalf("the dialog has no %q button", text)
	}
	test.Tap(b)
}

// fillValid fills the form as a run takes it (the window fills it from the remembered
// settings): prompt, 512², 4 steps, a random seed.
func fillValid(t *testing.T, c *Controls, prompt string) {
	t.Helper()
	test.Type(c.Prompt, prompt)
	c.SetSize(512, 512)
	c.Steps.SetText("4")
	c.Seed.SetText("")
	if _, ok := c.ReadForm(); !ok {
		t.Fatalf("a valid form was refused: prompt %q, size %s×%s, steps %q, seed %q",
			c.Prompt.Text, c.Width.Text, c.Height.Text, c.Steps.Text, c.Seed.Text)
	}
}

// withBanner gives c's shell the window's banner, where notices and errors show.
func withBanner(c *Controls) {
	c.sh.Banner = shell.NewBanner(c.sh.Tips)
}

// wheelOver turns the mouse wheel by dy (negative: down) over the middle of o in w, as a
// real window does: the event goes to the deepest scrollable object under the pointer.
func wheelOver(w fyne.Window, o fyne.CanvasObject, dy float32) {
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(o).Add(fyne.NewPos(o.Size().Width/2, o.Size().Height/2))
	test.Scroll(w.Canvas(), pos, 0, dy)
}

// tinyFitLine is testControls' fit line on the tiny golden model's shapes (read without a
// window), calibrated as root app's fakeCalibrate on the automatic device, the model not
// loaded and no references or adapters; the form asks for 512² at 4 steps.
func tinyFitLine(t *testing.T) (*Controls, *FitLine) {
	t.Helper()
	c, fit, _ := testControls(t, fyne.NewSize(1000, 900))
	info, err := engine.Inspect(golden.TinyModel(t))
	if err != nil {
		t.Fatal(err)
	}
	m, err := estimate.ForFolder(info)
	if err != nil {
		t.Fatal(err)
	}
	fit.sh = c.sh
	fit.FitDeps = FitDeps{Form: c, Chosen: fitModel{}, Refs: func() []string { return nil },
		Adapters: func() lora.Stack { return nil }, Loaded: func(string, string) bool { return false },
		Relayout: func() {}, Busy: func() bool { return false }}
	fit.Model = &m
	fit.started = true // on fitModel's device "", as a calibration would leave it
	fit.Calib = estimate.Calibration{Backend: "test", LinearGFLOPS: 10, AttentionGFLOPS: 10, ConvGFLOPS: 10, Measured: time.Now()}
	c.SetSize(512, 512)
	c.Steps.SetText("4")
	return c, fit
}
