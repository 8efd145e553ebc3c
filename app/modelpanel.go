package app

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
	"kleinbild/app/userdirs"
	"kleinbild/download"
	"kleinbild/engine"
	"kleinbild/gpu/backends"
)

// modelSettings is the model in use and the model dialog: the model's choice and checks,
// the downloads and the compute device.
type modelSettings struct {
	sh *shell.Shell
	// devices replaces backends.Devices (Options.devices; tests).
	devices func() []backends.Device
	modelDeps

	// spec is the model chosen; dir its path (a folder or a file; the first part file when
	// the spec has no path), "" when none.
	spec modelSpec
	dir  string
	// src is the model as read once when it was chosen (openSpec): what the fit line, the
	// check and generation use. nil when unusable or unset.
	src  engine.Source
	info engine.ModelInfo
	err  error // why the model cannot be used; nil when usable or unset

	// button opens the model dialog from the header; dlg is the open dialog, or nil.
	button *widget.Button
	dlg    dialog.Dialog
	// form is the open dialog's form (drops go there), or nil.
	form *modelForm

	dl       *downloadRun     // this session's model download, or nil
	dlPanels []*downloadPanel // the download sections on screen
	hubOpts  download.Options // base options of downloads (tests shorten intervals)

	dev deviceState
}

// modelDeps is what the model settings use of the other components; UI.wire gives it.
type modelDeps struct {
	busy func() bool // a generation runs: the model does not change under it
	// changed tells the others that the model changed: its info, and whether it is
	// chosen and usable.
	changed func(info engine.ModelInfo, usable bool)
	// deviceChanged asks for a new estimate after the device changed.
	deviceChanged func()
}

var errNoModel = errors.New("choose a model folder first")

// cleanDir turns what the user typed into an absolute path ("~/" expands to home).
func cleanDir(dir string) string {
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
		return engine.ModelInfo{}, errNoModel
	}
	info, err := engine.Inspect(dir)
	if err != nil {
		return info, err
	}
	return info, info.MissingError()
}

// buildButton makes the header's model button, which opens the model dialog.
func (m *modelSettings) buildButton() *widget.Button {
	m.button = widget.NewButtonWithIcon("No model", theme.StorageIcon(), m.ShowDialog)
	m.button.Importance = widget.LowImportance
	return m.button
}

// Usable reports whether a model is chosen and opened without error.
func (m *modelSettings) Usable() bool { return m.dir != "" && m.err == nil }

// ModelKey identifies the model chosen (modelSpec.key).
func (m *modelSettings) ModelKey() string { return m.spec.key() }

// UsableSource is the model as read when it was chosen; nil when unusable or unset.
func (m *modelSettings) UsableSource() engine.Source {
	if m.err != nil {
		return nil
	}
	return m.src
}

// ModelDir is the chosen model's path, "" when none.
func (m *modelSettings) ModelDir() string { return m.dir }

// ModelInfo is what the chosen model is (its variant and defaults).
func (m *modelSettings) ModelInfo() engine.ModelInfo { return m.info }

// showRunPhase disables the model button while a run goes on: the model cannot change
// under it.
func (m *modelSettings) showRunPhase(p runPhase) {
	if p != runIdle {
		m.button.Disable()
	} else {
		m.button.Enable()
	}
}

// checkModelLater checks src (checkSource) in the background; if it is still the model
// when the check ends and the check fails, the model becomes unusable with a plain message.
func (m *modelSettings) checkModelLater(key string, src engine.Source) {
	m.sh.BG.Add(1)
	go func() {
		defer m.sh.BG.Done()
		err := checkSource(m.sh.Life, src)
		if err == nil || m.sh.Life.Err() != nil {
			return
		}
		m.sh.Post(func() {
			if m.spec.key() != key || m.err != nil || m.busy() {
				return
			}
			m.err, m.src = err, nil
			m.sh.ShowErrorAbout(shell.TopicModel, fmt.Errorf("the model cannot be used: %w", err))
			m.refresh()
		})
	}()
}

// SetModelDir switches to the model dir (a diffusers folder, a ComfyUI models folder or a
// transformer file) after checking it; remember keeps it for the next start. A problem is
// shown in the window and returned.
func (u *UI) SetModelDir(dir string, remember bool) error {
	return u.model.setDir(dir, remember)
}

// setDir switches to the model folder or file dir (SetModelDir).
func (m *modelSettings) setDir(dir string, remember bool) error {
	return m.setSpec(modelSpec{Path: dir}, remember)
}

// setSpec reads the model sp names (once: openSpec) and switches to it.
func (m *modelSettings) setSpec(sp modelSpec, remember bool) error {
	if m.busy() {
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
func (m *modelSettings) use(sp modelSpec, src engine.Source, info engine.ModelInfo, err error, remember, check bool) error {
	if m.busy() {
		err := errors.New("wait for the current generation to finish (or cancel it) before switching models")
		m.sh.ShowError(err)
		return err
	}
	m.spec, m.src, m.info, m.err = sp, src, info, err
	m.dir = firstOf(sp.Path, sp.Transformer, sp.TextEncoder, sp.VAE)
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
	m.refresh()
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

// refresh shows the model state in the header and tells the others (changed).
func (m *modelSettings) refresh() {
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
	m.changed(m.info, m.err == nil && m.dir != "")
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
func (m *modelSettings) closeDialog() {
	if d := m.dlg; d != nil {
		m.dlg, m.form = nil, nil
		d.Hide()
	}
}

// browseFolder lets the user pick a folder in Kleinbild's chooser, titled title, starting
// in the folder that holds start (else home), and passes its path to set.
func (m *modelSettings) browseFolder(title, start string, set func(string)) *fileChooser {
	start = cleanDir(start)
	return openChooser(m.sh, title, chooseFolder, func() string {
		home, _ := userdirs.Dirs()
		if start != "" && userdirs.IsDir(filepath.Dir(start)) {
			return filepath.Dir(start)
		}
		if home != "" && userdirs.IsDir(home) {
			return home
		}
		wd, _ := os.Getwd()
		return wd
	}, func(p []string) { set(p[0]) })
}
