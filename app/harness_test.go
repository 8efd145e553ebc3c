package app

import (
	"context"
	"image"
	"image/color"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/run"
	"kleinbild/app/widgets"
	"kleinbild/engine"
	"kleinbild/engine/imageio"
	"kleinbild/estimate"
	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/internal/testfix/metapng"
	"kleinbild/weights/golden"
)

// harness runs a UI on the test driver with its own event loop standing in for the Fyne
// UI goroutine: background work posts closures, and the test goroutine runs them while it
// waits, so all widget access stays on one goroutine as in the real app.
type harness struct {
	t   *testing.T
	ui  *UI
	win fyne.Window

	mu     sync.Mutex
	queue  []func()
	closed bool
}

func (h *harness) post(fn func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.queue = append(h.queue, fn)
	}
}

// pump runs the queued closures; it reports whether there were any.
func (h *harness) pump() bool {
	h.mu.Lock()
	q := h.queue
	h.queue = nil
	h.mu.Unlock()
	for _, fn := range q {
		fn()
	}
	return len(q) > 0
}

// minWait is the least waitFor waits before it fails: CI machines are often loaded by other
// work, and the timeout only bounds how long a failing test takes to say so.
const minWait = 60 * time.Second

// waitFor runs the event loop until cond holds, failing the test after the timeout (at
// least minWait).
func (h *harness) waitFor(what string, timeout time.Duration, cond func() bool) {
	h.t.Helper()
	timeout = max(timeout, minWait)
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out after %v waiting for %s (banner: %q)", timeout, what, h.ui.ErrorText())
		}
		if !h.pump() {
			time.Sleep(2 * time.Millisecond)
		}
	}
}

// settle runs the loop until it has been quiet for a moment.
func (h *harness) settle() {
	quiet := 0
	for quiet < 10 {
		if h.pump() {
			quiet = 0
		} else {
			quiet++
			time.Sleep(2 * time.Millisecond)
		}
	}
}

// newHarness builds a UI over dataDir. modelDir "" leaves the model unset; open nil uses
// the real engine.
func newHarness(t *testing.T, dataDir, modelDir string, open OpenFunc) *harness {
	t.Helper()
	a := test.NewTempApp(t)
	w := a.NewWindow("Kleinbild")
	w.Resize(fyne.NewSize(1280, 860))
	h := &harness{t: t, win: w}
	u, err := newUI(a, w, Options{DataDir: dataDir, ModelDir: modelDir, Open: open, calibrate: fakeCalibrate, devices: fakeDevices}, h.post)
	if err != nil {
		t.Fatal(err)
	}
	h.ui = u
	t.Cleanup(h.close)
	h.waitFor("the gallery to load", 10*time.Second, func() bool { return isClosed(u.GalleryReady) })
	return h
}

// close shuts the UI down while still serving its posts, like the real app.
func (h *harness) close() {
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		return
	}
	done := make(chan struct{})
	go func() { h.ui.Close(); close(done) }()
	for {
		select {
		case <-done:
			h.mu.Lock()
			h.closed = true
			h.mu.Unlock()
			h.win.Close()
			return
		default:
			if !h.pump() {
				time.Sleep(time.Millisecond)
			}
		}
	}
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
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

// findButton returns the button labelled text inside o (including widget internals).
func findButton(o fyne.CanvasObject, text string) *widget.Button {
	switch v := o.(type) {
	case *widgets.TipButton: // an icon button, named by its tooltip
		if v.Tip == text || (v.Text != "" && v.Text == text) {
			return &v.Button
		}
		return nil
	case *widget.Button:
		if v.Text == text {
			return v
		}
		return nil
	case *fyne.Container:
		for _, c := range v.Objects {
			if b := findButton(c, text); b != nil {
				return b
			}
		}
		return nil
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(v).Objects() {
			if b := findButton(c, text); b != nil {
				return b
			}
		}
	}
	return nil
}

// tapDialogButton taps the button labelled text in the topmost dialog.
func (h *harness) tapDialogButton(text string) {
	h.t.Helper()
	top := h.win.Canvas().Overlays().Top()
	if top == nil {
		h.t.Fatalf("no dialog is open (wanted button %q)", text)
	}
	b := findButton(top, text)
	if b == nil {
		h.t.Fatalf("the dialog has no %q button", text)
	}
	test.Tap(b)
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

// fakeDevices stands in for backends.Devices: two CPU backends (the first automatic) and a
// discrete GPU with 8 GB.
func fakeDevices() []backends.Device {
	return []backends.Device{
		{ID: "openblas", Backend: "openblas", Auto: true, Info: gpu.DeviceInfo{Name: "Test CPU", Kind: gpu.KindCPU, API: "OpenBLAS", MemoryBytes: 16e9}},
		{ID: "purego", Backend: "purego", Info: gpu.DeviceInfo{Name: "Test CPU", Kind: gpu.KindCPU, API: "Go (gonum)", MemoryBytes: 16e9}},
		{ID: "webgpu:0", Backend: "webgpu", Info: gpu.DeviceInfo{Name: "Test GPU", Kind: gpu.KindDiscrete, API: "Vulkan", MemoryBytes: 8e9}},
	}
}

// findRichText returns the first RichText inside o whose text contains s.
func findRichText(o fyne.CanvasObject, s string) *widget.RichText {
	switch v := o.(type) {
	case *widget.RichText:
		if strings.Contains(v.String(), s) {
			return v
		}
		return nil
	case *fyne.Container:
		for _, c := range v.Objects {
			if r := findRichText(c, s); r != nil {
				return r
			}
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(v).Objects() {
			if r := findRichText(c, s); r != nil {
				return r
			}
		}
	}
	return nil
}
