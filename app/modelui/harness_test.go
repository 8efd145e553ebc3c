package modelui

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/settings"
	"kleinbild/app/shell"
	"kleinbild/app/widgets"
	"kleinbild/engine"
	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/weights/golden"
)

// harness runs a Model in a test window over its own data folder, with its own event loop
// standing in for the Fyne UI goroutine (as package app's harness does for the whole
// window): background work posts closures, and the test goroutine runs them while it waits.
type harness struct {
	t   *testing.T
	sh  *shell.Shell
	m   *Model
	win fyne.Window

	mu     sync.Mutex
	queue  []func()
	closed bool

	// changes are the Changed reports of the model, in order; deviceChanged counts the
	// DeviceChanged calls (UI goroutine).
	changes       []change
	deviceChanged int
}

// change is one report of Deps.Changed.
type change struct {
	info   engine.ModelInfo
	usable bool
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
			h.t.Fatalf("timed out after %v waiting for %s (banner: %q)", timeout, what, h.sh.ErrorText())
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

// newHarness builds a Model over dataDir with fakeDevices, its settings read from
// dataDir/settings.json as the window reads them, the device probed and the model of the
// settings (or modelDir when not "") set, as the window starts.
func newHarness(t *testing.T, dataDir, modelDir string) *harness {
	t.Helper()
	a := test.NewTempApp(t)
	w := a.NewWindow("Kleinbild")
	w.Resize(fyne.NewSize(1280, 860))
	h := &harness{t: t, win: w}
	sh := &shell.Shell{App: a, Win: w, DataDir: dataDir, Post: h.post,
		Store: shell.SettingsFile{Path: filepath.Join(dataDir, "settings.json")}}
	sh.Life, sh.End = context.WithCancel(context.Background())
	set, err := settings.Load(sh.Store.Path)
	if err != nil {
		t.Fatal(err)
	}
	sh.Settings = set
	sh.Tips = widgets.NewTipLayer(w.Canvas(), sh.Post)
	sh.Banner = shell.NewBanner(sh.Tips)
	sh.Status = widget.NewLabel("")
	h.sh = sh
	m := New(sh, fakeDevices, Deps{
		Busy:             func() bool { return false },
		Changed:          func(info engine.ModelInfo, usable bool) { h.changes = append(h.changes, change{info, usable}) },
		DeviceChanged:    func() { h.deviceChanged++ },
		BrowseFolder:     func(string, string, func(string)) {},
		BrowseWeightFile: func(string, func(string)) {},
	})
	h.m = &m
	m.SetDeviceChoice(set.Device)
	w.SetContent(container.NewBorder(container.NewHBox(h.m.BuildButton()), sh.Status, nil, nil, sh.Banner.Box))
	// Escape closes the open dialog as the window's key handler does (package app's ui.go):
	// what no focused field takes goes to the canvas.
	w.Canvas().SetOnTypedKey(func(ev *fyne.KeyEvent) {
		if ev.Name == fyne.KeyEscape {
			sh.EscapeDialog(w.Canvas())
		}
	})
	switch {
	case modelDir != "":
		h.m.SetDir(modelDir, false)
	case !SpecFromSettings(set).Empty():
		h.m.SetSpec(SpecFromSettings(set), false)
	default:
		h.m.Refresh()
	}
	h.m.ProbeDevices()
	t.Cleanup(h.close)
	h.waitFor("the device probe", 10*time.Second, func() bool { return h.m.Dev.Probed })
	return h
}

// close ends the model's background work while still serving its posts, like the window.
func (h *harness) close() {
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		return
	}
	done := make(chan struct{})
	go func() { h.sh.End(); h.sh.BG.Wait(); close(done) }()
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

// savedSettings reads settings.json once the background writes are done.
func (h *harness) savedSettings() settings.Settings {
	h.t.Helper()
	var s settings.Settings
	h.waitFor("the settings to be saved", 5*time.Second, func() bool {
		got, ok, err := h.sh.Store.LoadSaved()
		if !ok {
			return false
		}
		s = got
		return err == nil
	})
	return s
}

// openDeviceSettings opens the model dialog and waits until the device select lists the
// probed devices.
func (h *harness) openDeviceSettings() {
	h.t.Helper()
	h.m.ShowDialog()
	h.waitFor("the device list", 5*time.Second, func() bool {
		return h.m.Dev.sel != nil && len(h.m.Dev.sel.Options) > 0
	})
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

// typeKey types a key on canvas c as the window does: to the focused widget when there is
// one, else to the canvas.
func typeKey(c fyne.Canvas, name fyne.KeyName) {
	ev := &fyne.KeyEvent{Name: name}
	if f := c.Focused(); f != nil {
		f.TypedKey(ev)
		return
	}
	c.OnTypedKey()(ev)
}

func tinyModel(t *testing.T) string { return golden.TinyModel(t) }

// fakeDevices stands in for backends.Devices: two CPU backends (the first automatic) and a
// discrete GPU with 8 GB (as package app's tests have them).
func fakeDevices() []backends.Device {
	return []backends.Device{
		{ID: "openblas", Backend: "openblas", Auto: true, Info: gpu.DeviceInfo{Name: "Test CPU", Kind: gpu.KindCPU, API: "OpenBLAS", MemoryBytes: 16e9}},
		{ID: "purego", Backend: "purego", Info: gpu.DeviceInfo{Name: "Test CPU", Kind: gpu.KindCPU, API: "Go (gonum)", MemoryBytes: 16e9}},
		{ID: "webgpu:0", Backend: "webgpu", Info: gpu.DeviceInfo{Name: "Test GPU", Kind: gpu.KindDiscrete, API: "Vulkan", MemoryBytes: 8e9}},
	}
}
