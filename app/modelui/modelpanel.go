// Package modelui is the model in use and the model dialog of the window: the model as
// chosen and read once, its checks, the downloads and the compute device.
package modelui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/shell"
	"kleinbild/download"
	"kleinbild/engine"
	"kleinbild/gpu/backends"
)

// Model is the model in use and the model dialog: the model's choice and checks,
// the downloads and the compute device.
type Model struct {
	sh *shell.Shell
	// devices replaces backends.Devices (Options.devices; tests).
	devices func() []backends.Device
	Deps

	// spec is the model chosen; dir its path (a folder or a file; the first part file when
	// the spec has no path), "" when none.
	spec Spec
	dir  string
	// src is the model as read once when it was chosen (openSpec): what the fit line, the
	// check and generation use. nil when unusable or unset.
	src  engine.Source
	info engine.ModelInfo
	err  error // why the model cannot be used; nil when usable or unset

	// button opens the model dialog from the header; dlg is the open dialog, or nil.
	button *widget.Button
	Dlg    dialog.Dialog
	// Form is the open dialog's form (drops go there), or nil.
	Form *modelForm

	DL       *DownloadRun     // this session's model download, or nil
	dlPanels []*DownloadPanel // the download sections on screen
	hubOpts  download.Options // base options of downloads (tests shorten intervals)

	Dev deviceState
}

// New makes the model settings; devices replaces backends.Devices when not nil (tests).
func New(sh *shell.Shell, devices func() []backends.Device, deps Deps) Model {
	return Model{sh: sh, devices: devices, Deps: deps}
}

// SetDeviceChoice sets the device chosen ("" automatic): the saved preference, or
// Options.Backend for this session.
func (m *Model) SetDeviceChoice(id string) { m.Dev.choice = id }

// Deps is what the model settings use of the other components; UI.wire gives it.
type Deps struct {
	Busy func() bool // a generation runs: the model does not change under it
	// Changed tells the others that the model changed: its info, and whether it is
	// chosen and usable.
	Changed func(info engine.ModelInfo, usable bool)
	// DeviceChanged asks for a new estimate after the device changed.
	DeviceChanged func()
	// BrowseFolder lets the user pick a folder in Kleinbild's chooser, titled title,
	// starting in the folder that holds start, and passes its path to set.
	BrowseFolder func(title, start string, set func(string))
	// BrowseWeightFile lets the user pick a GGUF or safetensors file in Kleinbild's
	// chooser, starting in the folder of start, and passes its path to set.
	BrowseWeightFile func(start string, set func(string))
}

var ErrNoModel = errors.New("choose a model folder first")

// CleanDir turns what the user typed into an absolute path ("~/" expands to home).
func CleanDir(dir string) string {
	dir = strings.TrimSpace(dir)
	if dir == "" {
		return ""
	}
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, dir[1:])
		}
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return filepath.Clean(dir)
}

// inspectModel checks a diffusers model folder; the error names what is wrong or missing.
func inspectModel(dir string) (engine.ModelInfo, error) {
	if dir == "" {
		return engine.ModelInfo{}, ErrNoModel
	}
	info, err := engine.Inspect(dir)
	if err != nil {
		return info, err
	}
	return info, info.MissingError()
}

// BuildButton makes the header's model button, which opens the model dialog.
func (m *Model) BuildButton() *widget.Button {
	m.button = widget.NewButtonWithIcon("No model", theme.StorageIcon(), m.ShowDialog)
	m.button.Importance = widget.LowImportance
	return m.button
}

// Usable reports whether a model is chosen and opened without error.
func (m *Model) Usable() bool { return m.dir != "" && m.err == nil }

// ModelKey identifies the model chosen (Spec.key).
func (m *Model) ModelKey() string { return m.spec.key() }

// UsableSource is the model as read when it was chosen; nil when unusable or unset.
func (m *Model) UsableSource() engine.Source {
	if m.err != nil {
		return nil
	}
	return m.src
}

// ModelDir is the chosen model's path, "" when none.
func (m *Model) ModelDir() string { return m.dir }

// ModelInfo is what the chosen model is (its variant and defaults).
func (m *Model) ModelInfo() engine.ModelInfo { return m.info }

// ShowRunPhase disables the model button while a run goes on (idle is false): the model
// cannot change under it.
func (m *Model) ShowRunPhase(idle bool) {
	if !idle {
		m.button.Disable()
	} else {
		m.button.Enable()
	}
}

// checkModelLater checks src (checkSource) in the background; if it is still the model
// when the check ends and the check fails, the model becomes unusable with a plain message.
func (m *Model) checkModelLater(key string, src engine.Source) {
	m.sh.BG.Add(1)
	go func() {
		defer m.sh.BG.Done()
		err := checkSource(m.sh.Life, src)
		if err == nil || m.sh.Life.Err() != nil {
			return
		}
		m.sh.Post(func() {
			if m.spec.key() != key || m.err != nil || m.Busy() {
				return
			}
			m.err, m.src = err, nil
			m.sh.ShowErrorAbout(shell.TopicModel, fmt.Errorf("the model cannot be used: %w", err))
			m.Refresh()
		})
	}()
}

// SetDir switches to the model folder or file dir (SetModelDir).
func (m *Model) SetDir(dir string, remember bool) error {
	return m.SetSpec(Spec{path: dir}, remember)
}

// SetSpec reads the model sp names (once: openSpec) and switches to it.
func (m *Model) SetSpec(sp Spec, remember bool) error {
	if m.Busy() {
		err := errors.New("wait for the current generation to finish (or cancel it) before switching models")
		m.sh.ShowError(err)
		return err
	}
	sp = sp.clean()
	src, info, err := openSpec(sp)
	return m.use(sp, src, info, err, remember, true)
}

// use switches to the model sp as openSpec read it (src, info, err); check runs the
// structural check in the background (false when the dialog has run it).
func (m *Model) use(sp Spec, src engine.Source, info engine.ModelInfo, err error, remember, check bool) error {
	if m.Busy() {
		err := errors.New("wait for the current generation to finish (or cancel it) before switching models")
		m.sh.ShowError(err)
		return err
	}
	m.spec, m.src, m.info, m.err = sp, src, info, err
	m.dir = firstOf(sp.path, sp.transformer, sp.textEncoder, sp.vae)
	if err != nil {
		m.src = nil
		m.sh.ShowErrorAbout(shell.TopicModel, fmt.Errorf("the model cannot be used: %w", err))
	} else {
		m.sh.ClearBanner(shell.TopicModel)
		if check {
			m.checkModelLater(sp.key(), src)
		}
		if remember {
			sp.store(&m.sh.Settings)
			m.sh.Remember(m.sh.Settings)
		}
	}
	m.Refresh()
	return err
}

// firstOf is the first non-empty string.
func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// Refresh shows the model state in the header and tells the others (changed).
func (m *Model) Refresh() {
	b := m.button
	switch {
	case m.dir == "":
		b.SetText("No model: choose one")
		b.Importance = widget.WarningImportance
	case m.err != nil && len(m.info.Problems) == 0:
		b.SetText("Model unusable")
		b.Importance = widget.DangerImportance
	case m.err != nil:
		b.SetText("Model incomplete")
		b.Importance = widget.DangerImportance
	default:
		b.SetText(modelLabel(m.info))
		b.Importance = widget.LowImportance
	}
	b.Refresh()
	m.Changed(m.info, m.err == nil && m.dir != "")
}

// modelLabel names a model for people: "klein-4B · distilled", or the folder name for
// models of unknown width (like the tiny test model).
func modelLabel(info engine.ModelInfo) string {
	name := info.Name
	if name == "" || name == "custom" {
		name = filepath.Base(info.Dir)
		for _, f := range info.Files { // a part file's model is named by its transformer
			if f.Component == engine.Transformer {
				name = filepath.Base(f.Path)
			}
		}
	}
	if info.Distilled {
		return name + " · distilled"
	}
	return name + " · base"
}

// closeDialog closes the model dialog if it is open.
func (m *Model) closeDialog() {
	if d := m.Dlg; d != nil {
		m.Dlg, m.Form = nil, nil
		d.Hide()
	}
}
