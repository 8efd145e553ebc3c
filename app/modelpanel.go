package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/humanize"
	"kleinbild/download"
	"kleinbild/engine"
	"kleinbild/internal/sysmem"
)

// modelSettings is the model folder in use and the model dialog: the folder's choice
// and checks, the downloads and the compute device.
type modelSettings struct {
	u *UI

	dir  string
	info engine.ModelInfo
	err  error // why dir cannot be used; nil when usable or unset

	// button opens the model dialog from the header; dlg is the open dialog, or nil.
	button *widget.Button
	dlg    dialog.Dialog

	dl       *downloadRun     // this session's model download, or nil
	dlPanels []*downloadPanel // the download sections on screen
	hubOpts  download.Options // base options of downloads (tests shorten intervals)

	dev deviceState
}

var errNoModel = errors.New("choose a model folder first")

// cleanDir turns what the user typed into an absolute folder path ("~/" expands to home).
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

// inspectModel checks a model folder; the error names what is wrong or missing.
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

// validateModel runs the structural check of `kleinbild info` (download.Validate without
// hashing) on dir; the error names the first broken file in plain words.
func validateModel(ctx context.Context, dir string) error {
	rep, err := download.Validate(ctx, dir, download.ValidateOptions{})
	if err != nil || rep.OK() {
		return err
	}
	q := rep.Problems[0]
	what := "is damaged or incomplete (truncated?)"
	if q.Kind == download.Missing {
		what = "is missing"
	}
	msg := q.Path + " " + what
	if n := len(rep.Problems) - 1; n > 0 {
		msg += fmt.Sprintf(", and %d more problem(s)", n)
	}
	return errors.New(msg + ": download the model again or choose another folder")
}

// checkModelLater validates dir in the background; if it is still the model when the check
// ends and the check fails, the model becomes unusable with a plain message.
func (m *modelSettings) checkModelLater(dir string) {
	m.u.bg.Add(1)
	go func() {
		defer m.u.bg.Done()
		err := validateModel(m.u.life, dir)
		if err == nil || m.u.life.Err() != nil {
			return
		}
		m.u.post(func() {
			if m.dir != dir || m.err != nil || m.u.run.cur != nil {
				return
			}
			m.err = err
			m.u.showErrorAbout(topicModel, fmt.Errorf("the model folder cannot be used: %w", err))
			m.refresh()
		})
	}()
}

// SetModelDir switches to the model folder dir after checking it; remember keeps it for
// the next start. A problem is shown in the window and returned.
func (u *UI) SetModelDir(dir string, remember bool) error { return u.model.setDir(dir, remember) }

// setDir is SetModelDir.
func (m *modelSettings) setDir(dir string, remember bool) error {
	if m.u.run.cur != nil {
		err := errors.New("wait for the current generation to finish (or cancel it) before switching models")
		m.u.showError(err)
		return err
	}
	dir = cleanDir(dir)
	info, err := inspectModel(dir)
	m.dir, m.info, m.err = dir, info, err
	if err != nil {
		m.u.showErrorAbout(topicModel, fmt.Errorf("the model folder cannot be used: %w", err))
	} else {
		m.u.clearBanner(topicModel)
		m.checkModelLater(dir)
		if remember {
			m.u.settings.ModelDir = dir
			m.u.remember(m.u.settings)
		}
	}
	m.refresh()
	return err
}

// refresh shows the model state in the header and adapts the controls to the variant.
func (m *modelSettings) refresh() {
	b := m.button
	switch {
	case m.dir == "":
		b.SetText("No model: choose one")
		b.Importance = widget.WarningImportance
	case m.err != nil:
		b.SetText("Model folder incomplete")
		b.Importance = widget.DangerImportance
	default:
		b.SetText(modelLabel(m.info))
		b.Importance = widget.LowImportance
	}
	b.Refresh()
	if m.err == nil && m.dir != "" && !m.info.Distilled {
		m.u.ctl.guidanceBox.Show()
	} else {
		m.u.ctl.guidanceBox.Hide()
	}
	if def := m.info.DefaultSteps; def > 0 {
		cur := strings.TrimSpace(m.u.ctl.steps.Text)
		if cur == "" || cur == fmt.Sprint(m.u.ctl.stepsDefault) {
			m.u.ctl.steps.SetText(fmt.Sprint(def))
		}
		m.u.ctl.stepsDefault = def
		m.u.ctl.steps.SetPlaceHolder(fmt.Sprint(def))
	}
	if def := m.info.DefaultGuidance; def > 0 {
		if old := m.u.ctl.guidanceDefault; old == 0 || m.u.ctl.guidance.Value == old {
			m.u.ctl.guidance.SetValue(def)
		}
		m.u.ctl.guidanceDefault = def
	}
	m.u.fit.setModel()
	m.u.view.update()
}

// modelLabel names a model for people: "klein-4B · distilled", or the folder name for
// models of unknown width (like the tiny test model).
func modelLabel(info engine.ModelInfo) string {
	name := info.Name
	if name == "" || name == "custom" {
		name = filepath.Base(info.Dir)
	}
	if info.Distilled {
		return name + " · distilled"
	}
	return name + " · base"
}

// modelReport describes a checked model folder in Markdown.
func modelReport(info engine.ModelInfo, err error, mem sysmem.Status) string {
	if errors.Is(err, errNoModel) {
		return "Choose the folder that holds `model_index.json`."
	}
	if err != nil {
		if len(info.Missing) > 0 {
			var b strings.Builder
			b.WriteString("**This folder is incomplete.** Missing:\n\n")
			for _, m := range info.Missing {
				fmt.Fprintf(&b, "* `%s`\n", m)
			}
			return b.String()
		}
		return "**This folder cannot be used:** " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**✓ %s** · %d steps by default", modelLabel(info), info.DefaultSteps)
	if !info.Distilled {
		fmt.Fprintf(&b, ", guidance %.1f", info.DefaultGuidance)
	}
	fmt.Fprintf(&b, "\n\nWeights: **%s**", humanize.Bytes(uint64(max(info.WeightBytes, 0))))
	switch {
	case !mem.Known:
		b.WriteString(" · memory available: unknown on this system")
	case mem.Total:
		fmt.Fprintf(&b, " · memory installed: **%s**", humanize.Bytes(mem.Bytes))
	default:
		fmt.Fprintf(&b, " · memory available now: **%s**", humanize.Bytes(mem.Bytes))
	}
	if mem.Known && uint64(max(info.WeightBytes, 0)) > mem.Bytes {
		b.WriteString("\n\n⚠ The weights are larger than the memory available: generation will be very slow " +
			"(the system keeps reading them from disk). Close other programs or use a smaller model.")
	}
	return b.String()
}

// ShowModelDialog opens the model settings: choose a folder, see what it is and whether
// it is complete, and the memory it needs against what the machine has.
func (u *UI) ShowModelDialog() { u.model.showDialog() }

// showDialog is ShowModelDialog.
func (m *modelSettings) showDialog() {
	path := widget.NewEntry()
	path.SetPlaceHolder("Model folder, e.g. ~/models/FLUX.2-klein-4B")
	path.SetText(m.dir)
	status := widget.NewRichTextFromMarkdown("")
	status.Wrapping = fyne.TextWrapWord
	mem := sysmem.Read()
	var use *widget.Button
	checking := widget.NewProgressBarInfinite()
	checking.Hide()
	gen := 0 // the latest check; older results are dropped
	check := func() {
		gen++
		my := gen
		dir := cleanDir(path.Text)
		info, err := inspectModel(dir)
		if use != nil {
			use.Disable()
		}
		if err != nil {
			checking.Hide()
			status.ParseMarkdown(modelReport(info, err, mem))
			return
		}
		status.ParseMarkdown("Checking the model files…")
		checking.Show()
		m.u.bg.Add(1)
		go func() {
			defer m.u.bg.Done()
			verr := validateModel(m.u.life, dir)
			m.u.post(func() {
				if my != gen {
					return
				}
				checking.Hide()
				if verr != nil {
					status.Segments = []widget.RichTextSegment{&widget.TextSegment{
						Style: widget.RichTextStyleStrong, Text: "This folder cannot be used: "},
						&widget.TextSegment{Style: widget.RichTextStyleInline, Text: verr.Error()}}
					status.Refresh()
					return
				}
				status.ParseMarkdown(modelReport(info, nil, mem))
				if use != nil {
					use.Enable()
				}
			})
		}()
	}
	path.OnChanged = func(string) { check() }
	browse := widget.NewButtonWithIcon("Browse…", theme.FolderOpenIcon(), func() {
		m.browseFolder("Choose the model folder", path.Text, func(dir string) { path.SetText(dir) })
	})
	help := widget.NewRichTextFromMarkdown("To try the app quickly, choose the tiny test model `tiny-flux2-klein` " +
		"(random weights: it paints noise, fast).")
	help.Wrapping = fyne.TextWrapWord
	dl, release := m.newDownloadPanel()
	devBox, releaseDev := m.newDeviceSection()
	content := container.NewVBox(
		sectionTitle("Model folder"),
		container.NewBorder(nil, nil, nil, browse, path),
		checking,
		status,
		help,
		widget.NewSeparator(),
		devBox,
		widget.NewSeparator(),
		dl.box)
	d := dialog.NewCustomWithoutButtons("Model", container.NewVScroll(content), m.u.win)
	m.dlg = d
	d.SetOnClosed(func() {
		release()
		releaseDev()
		if m.dlg == d {
			m.dlg = nil
		}
	})
	cancel := widget.NewButton("Close", d.Hide)
	use = widget.NewButtonWithIcon("Use this model", theme.ConfirmIcon(), func() {
		if m.setDir(path.Text, true) == nil {
			d.Hide()
		}
	})
	use.Importance = widget.HighImportance
	d.SetButtons([]fyne.CanvasObject{cancel, use})
	check()
	d.Resize(fyne.NewSize(680, 640))
	d.Show()
}

// closeDialog closes the model dialog if it is open.
func (m *modelSettings) closeDialog() {
	if d := m.dlg; d != nil {
		m.dlg = nil
		d.Hide()
	}
}

// browseFolder lets the user pick a folder in Kleinbild's chooser, titled title, starting
// in the folder that holds start (else home), and passes its path to set.
func (m *modelSettings) browseFolder(title, start string, set func(string)) *fileChooser {
	start = cleanDir(start)
	return m.u.openChooser(title, chooseFolder, func() string {
		home, _ := userDirs()
		if start != "" && isDir(filepath.Dir(start)) {
			return filepath.Dir(start)
		}
		if home != "" && isDir(home) {
			return home
		}
		wd, _ := os.Getwd()
		return wd
	}, func(p []string) { set(p[0]) })
}
