package app

import (
	"context"
	"image"
	"image/color"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/internal/uitest"
	"kleinbild/app/maskedit"
	"kleinbild/app/run"
	"kleinbild/app/widgets"
	"kleinbild/engine"
	"kleinbild/engine/imageio"
	"kleinbild/estimate"
	"kleinbild/internal/testfix/metapng"
	"kleinbild/weights/golden"
)

// harness runs a UI on the test driver with its own event loop standing in for the Fyne
// UI goroutine (uitest.Loop): background work posts closures, and the test goroutine runs
// them while it waits, so all widget access stays on one goroutine as in the real app.
type harness struct {
	*uitest.Window
	t   *testing.T
	ui  *UI
	win fyne.Window
}

func (h *harness) post(fn func()) { h.Post(fn) }

// settle runs the loop until it has been quiet for a moment.
func (h *harness) settle() { h.Settle() }

// waitFor runs the event loop until cond holds, failing the test after the timeout (at
// least uitest.MinWait).
func (h *harness) waitFor(what string, timeout time.Duration, cond func() bool) {
	h.t.Helper()
	h.WaitFor(what, timeout, cond)
}

// wait runs the event loop until done is closed (uitest.Loop.Wait).
func (h *harness) wait(what string, done <-chan struct{}) {
	h.t.Helper()
	h.Wait(what, done)
}

// newHarness builds a UI over dataDir. modelDir "" leaves the model unset; open nil uses
// the real engine.
func newHarness(t *testing.T, dataDir, modelDir string, open OpenFunc) *harness {
	t.Helper()
	uw := uitest.NewWindow(t)
	h := harnessOn(t, uw.App, uw.Win)
	u, err := newUI(uw.App, uw.Win, Options{DataDir: dataDir, ModelDir: modelDir, Open: open, calibrate: fakeCalibrate, devices: uitest.FakeDevices}, h.post)
	if err != nil {
		t.Fatal(err)
	}
	h.ui = u
	t.Cleanup(h.close)
	h.waitFor("the gallery to load", 10*time.Second, func() bool { return uitest.IsClosed(u.GalleryReady) })
	return h
}

// harnessOn is a harness for the window w of a, before its UI is built and set.
func harnessOn(t *testing.T, a fyne.App, w fyne.Window) *harness {
	h := &harness{Window: &uitest.Window{Loop: uitest.NewLoop(t), App: a, Win: w}, t: t, win: w}
	h.Banner = func() string { return h.ui.ErrorText() }
	return h
}

// close shuts the UI down while still serving its posts, like the real app.
func (h *harness) close() {
	if h.Close(h.ui.Close) {
		h.win.Close() // h.win: a test may have put another window there
	}
}

// generate types a prompt, taps Generate and waits until the run has ended.
func (h *harness) generate(prompt string) run.Outcome {
	h.t.Helper()
	h.ui.ctl.Prompt.SetText("")
	test.Type(h.ui.ctl.Prompt, prompt)
	test.Tap(h.ui.ctl.Generate)
	r := h.ui.run.Current()
	if r == nil {
		h.t.Fatalf("Generate did not start (banner %q, size %q, prompt %q)", h.ui.ErrorText(), h.ui.ctl.SizeErr.Text, h.ui.ctl.PromptErr.Text)
	}
	var out run.Outcome
	got := false
	h.waitFor("the generation to finish", 60*time.Second, func() bool {
		select {
		case out = <-r.Outcome():
			got = true
		default:
		}
		return got
	})
	r.Outcome() <- out // leave it for callers that read it again
	return out
}

// fakeGen is a Generator that paints a flat colour derived from the seed. With block set it
// reports progress and then waits until its context is cancelled.
type fakeGen struct {
	block   bool
	fail    error // when set, Generate reports progress with a preview and then fails with it
	calls   atomic.Int32
	started chan struct{}

	mu      sync.Mutex
	reqs    []engine.Request
	devices []string // the device of each open
}

func newFakeGen() *fakeGen { return &fakeGen{started: make(chan struct{}, 16)} }

func (f *fakeGen) open(_, device string) (Generator, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.devices = append(f.devices, device)
	return f, nil
}

// opened returns the devices the model was opened on, in order.
func (f *fakeGen) opened() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.devices...)
}

func (f *fakeGen) lastRequest() engine.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reqs[len(f.reqs)-1]
}

func (f *fakeGen) Generate(ctx context.Context, req engine.Request, progress func(engine.Progress)) (*engine.Result, error) {
	f.calls.Add(1)
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	start := time.Now()
	progress(engine.Progress{Phase: engine.PhaseLoading})
	progress(engine.Progress{Phase: engine.PhaseEncoding, Block: 1, Blocks: 2, Elapsed: time.Since(start)})
	f.started <- struct{}{}
	steps := req.Steps
	if steps == 0 {
		steps = 4
	}
	if f.block || f.fail != nil {
		prev := image.NewNRGBA(image.Rect(0, 0, max(1, req.Width/8), max(1, req.Height/8)))
		progress(engine.Progress{Phase: engine.PhaseDenoise, Step: 1, Steps: steps, Elapsed: time.Since(start), Preview: prev})
		if f.fail != nil {
			return nil, f.fail
		}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	c := color.NRGBA{R: uint8(req.Seed), G: uint8(req.Seed >> 8), B: uint8(req.Seed >> 16), A: 255}
	for i := 1; i <= steps; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		prev := image.NewNRGBA(image.Rect(0, 0, req.Width/8, req.Height/8))
		progress(engine.Progress{Phase: engine.PhaseDenoise, Step: i, Steps: steps, Block: 4, Blocks: 4, Elapsed: time.Since(start), Preview: prev})
	}
	progress(engine.Progress{Phase: engine.PhaseDecoding, Elapsed: time.Since(start)})
	img := image.NewNRGBA(image.Rect(0, 0, req.Width, req.Height))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	return &engine.Result{Image: img, Seed: req.Seed, WidthPx: req.Width, HeightPx: req.Height, Steps: steps, Schedule: req.Schedule}, nil
}

// findButton returns the button labelled text inside o (uitest.FindButton).
func findButton(o fyne.CanvasObject, text string) *widget.Button {
	return uitest.FindButton(o, text)
}

// tapDialogButton taps the button labelled text in the topmost dialog.
func (h *harness) tapDialogButton(text string) {
	h.t.Helper()
	h.TapDialogButton(text)
}

// writeTestPNG writes a w×h testfix.Pattern PNG (with meta when given) and returns its path.
func writeTestPNG(t *testing.T, dir, name string, w, h int, meta *imageio.Metadata) string {
	t.Helper()
	return metapng.Write(t, dir, name, w, h, meta)
}

func tinyModel(t *testing.T) string { return golden.TinyModel(t) }

// fakeCalibrate stands in for the one-second kernel calibration (and its file in the
// user's configuration folder).
func fakeCalibrate(context.Context, string) (estimate.Calibration, error) {
	return estimate.Calibration{Backend: "test", LinearGFLOPS: 10, AttentionGFLOPS: 10, ConvGFLOPS: 10, Measured: time.Now()}, nil
}

// shownRect is where target is drawn inside root, clipped by the scroll containers around
// it (uitest.ShownRect).
func shownRect(root, target fyne.CanvasObject) (pos fyne.Position, size fyne.Size, ok bool) {
	return uitest.ShownRect(root, target)
}

// relayout lays out o and everything in it at their current sizes (uitest.Relayout).
func relayout(o fyne.CanvasObject) { uitest.Relayout(o) }

// requireShown fails unless every object is drawn in full inside the window's canvas
// (uitest.RequireShown).
func requireShown(t *testing.T, w fyne.Window, what string, objs ...fyne.CanvasObject) {
	t.Helper()
	uitest.RequireShown(t, w, what, objs...)
}

// findCheck returns the check box whose label starts with prefix inside o, or nil.
func findCheck(o fyne.CanvasObject, prefix string) *widget.Check { return uitest.FindCheck(o, prefix) }

// findTipButton returns the button with the tooltip tip inside o, or nil.
func findTipButton(o fyne.CanvasObject, tip string) *widgets.TipButton {
	return uitest.FindTipButton(o, tip)
}

// findEscapeEntry returns the entry showing text inside o, or nil.
func findEscapeEntry(o fyne.CanvasObject, text string) *widgets.EscapeEntry {
	return uitest.FindEntry(o, text)
}

// fakeHome points HOME and XDG_CONFIG_HOME at a new folder with a Pictures folder
// (uitest.FakeHome); it returns home and the pictures folder.
func fakeHome(t *testing.T) (home, pictures string) { return uitest.FakeHome(t) }

// goldenLoRA is a tiny adapter of the golden data (uitest.GoldenLoRA).
func goldenLoRA(t *testing.T, name string) string { return uitest.GoldenLoRA(t, name) }

// writeLoRA copies the golden kohya adapter to dir/name with extra metadata and, when
// extraKey is not "", one more tensor (uitest.WriteLoRA).
func writeLoRA(t *testing.T, dir, name string, meta map[string]string, extraKey string) string {
	t.Helper()
	return uitest.WriteLoRA(t, dir, name, meta, extraKey)
}

// paintAt paints a square of the brush's size centred at p into e's mask (uitest.PaintAt).
func paintAt(e *maskedit.Editor, p image.Point) { uitest.PaintAt(e, p) }
