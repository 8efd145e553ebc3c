package modelui

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"

	"kleinbild/app/internal/uitest"
	"kleinbild/app/settings"
	"kleinbild/app/shell"
	"kleinbild/engine"
	"kleinbild/weights/golden"
)

// harness runs a Model in a test window over its own data folder, with its own event loop
// standing in for the Fyne UI goroutine (uitest.Loop, as package app's harness does for
// the whole window): background work posts closures, and the test goroutine runs them
// while it waits.
type harness struct {
	*uitest.Window
	t   *testing.T
	sh  *shell.Shell
	m   *Model
	win fyne.Window

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

// newHarness builds a Model over dataDir with uitest.FakeDevices, its settings read from
// dataDir/settings.json as the window reads them, the device probed and the model of the
// settings (or modelDir when not "") set, as the window starts.
func newHarness(t *testing.T, dataDir, modelDir string) *harness {
	t.Helper()
	uw := uitest.NewWindow(t)
	w := uw.Win
	h := &harness{Window: uw, t: t, win: w}
	sh := uw.NewShell(dataDir, uitest.ShellOptions{Settings: true, Banner: true})
	set := sh.Settings
	h.sh = sh
	m := New(sh, uitest.FakeDevices, Deps{
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
	h.WaitFor("the device probe", 10*time.Second, func() bool { return h.m.Dev.Probed })
	return h
}

// close ends the shell's background work while still serving its posts, like the window.
func (h *harness) close() { h.CloseShell(h.sh) }

// savedSettings reads settings.json once the background writes are done.
func (h *harness) savedSettings() settings.Settings {
	h.t.Helper()
	var s settings.Settings
	h.WaitFor("the settings to be saved", 5*time.Second, func() bool {
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
	h.WaitFor("the device list", 5*time.Second, func() bool {
		return h.m.Dev.sel != nil && len(h.m.Dev.sel.Options) > 0
	})
}

func tinyModel(t *testing.T) string { return golden.TinyModel(t) }
