package modelui

import (
	"context"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/shell"
	"kleinbild/app/widgets"
	"kleinbild/engine"
	"kleinbild/engine/source"
	"kleinbild/internal/sysmem"
)

// The variant choices offered when the files do not tell.
const (
	VariantDistilledLabel = "Distilled (4 steps)"
	VariantBaseLabel      = "Base (more steps, guidance)"
)

// Form is the model dialog's form: the model's path, the files that replace its parts,
// the ComfyUI combination and the variant, and what the latest check found. Checks read the
// model off the UI goroutine; "Use this model" takes the Source the check read.
type Form struct {
	m *Model

	Path       *widget.Entry
	Parts      map[engine.Component]*widget.Entry
	Combo      *widgets.EscapeSelect
	ComboBox   *fyne.Container
	Variant    *widget.RadioGroup
	VariantBox *fyne.Container
	Status     *widget.RichText
	Checking   *widget.ProgressBarInfinite
	Use        *widget.Button
	mem        sysmem.Status

	// pick is the ComfyUI combination chosen (nil: the engine's choice); variantChoice
	// "distilled" or "base" when chosen.
	pick          *engine.Combination
	variantChoice string
	VAEGroups     int  // Spec.VAEGroups, kept from the model in use
	quiet         bool // widgets are being set from a result: their OnChanged do nothing
	gen           int  // the latest check; older results are dropped
	Res           formResult
	OK            bool   // res is usable
	Report        string // the Markdown shown in status
	Content       *fyne.Container
}

// formResult is what a check of the form found.
type formResult struct {
	spec     Spec // with a ComfyUI folder's combination pinned
	Src      engine.Source
	Info     engine.ModelInfo
	err      error // OpenSpec's
	checkErr error // checkSource's
	open     bool  // variantOpen
	root     string
	combos   []engine.Combination
}

// readModelForm reads and checks the model sp names (off the UI goroutine). In a ComfyUI
// folder, pick's files stand in for the parts sp does not name.
func readModelForm(ctx context.Context, sp Spec, pick *engine.Combination) formResult {
	var r formResult
	r.root, r.combos = comfyChoices(sp.Path, sp.VAEGroups)
	if r.root != "" && len(r.combos) > 0 {
		// The chosen combination (else the engine's) supplies the parts not replaced.
		c := preferredCombo(r.combos)
		if pick != nil && slices.Contains(r.combos, *pick) {
			c = *pick
		}
		sp.Transformer = firstOf(sp.Transformer, c.Transformer)
		sp.TextEncoder = firstOf(sp.TextEncoder, c.TextEncoder)
		sp.VAE = firstOf(sp.VAE, c.VAE)
	}
	r.Src, r.Info, r.err = OpenSpec(sp)
	if r.err == nil && r.root != "" {
		for _, f := range r.Info.Files { // the combination used, so that it is what is remembered
			switch f.Component {
			case engine.Transformer:
				sp.Transformer = f.Path
			case engine.TextEncoder:
				sp.TextEncoder = f.Path
			case engine.VAE:
				sp.VAE = f.Path
			}
		}
	}
	r.spec = sp
	if r.err == nil {
		r.checkErr = checkSource(ctx, r.Src)
	}
	r.open = variantOpen(r.Src)
	return r
}

// ShowDialog is ShowModelDialog.
func (m *Model) ShowDialog() {
	f := &Form{m: m, mem: sysmem.Read(), Parts: map[engine.Component]*widget.Entry{}}
	path := widgets.NewEscapeEntry() // Escape closes the dialog also while a field has the focus
	f.Path = &path.Entry
	f.Path.SetPlaceHolder("Model folder or file, e.g. ~/models/FLUX.2-klein-4B or ~/ComfyUI/models")
	f.Status = widgets.Markdown("")
	f.Status.Wrapping = fyne.TextWrapWord
	f.Checking = widget.NewProgressBarInfinite()
	f.Checking.Hide()
	f.Combo = widgets.NewEscapeSelect(nil, f.comboChanged)
	f.ComboBox = container.NewVBox(shell.SectionTitle("Combination"), shell.Hint("The ComfyUI folder holds several usable sets of files: choose one."), f.Combo)
	f.ComboBox.Hide()
	f.Variant = widget.NewRadioGroup([]string{VariantDistilledLabel, VariantBaseLabel}, f.variantChanged)
	f.VariantBox = container.NewVBox(shell.SectionTitle("Variant"), shell.Hint("The files do not say whether this is the distilled or the base model: choose."), f.Variant)
	f.VariantBox.Hide()

	folder := widget.NewButtonWithIcon("Browse…", theme.FolderOpenIcon(), func() {
		m.BrowseFolder("Choose the model folder", f.Path.Text, func(dir string) { f.Path.SetText(dir) })
	})
	file := widget.NewButtonWithIcon("File…", theme.FileIcon(), func() {
		m.BrowseWeightFile(f.Path.Text, func(p string) { f.Path.SetText(p) })
	})
	partsBox := container.NewVBox(shell.SectionTitle("Replace parts (optional)"),
		shell.Hint("GGUF or safetensors files that take the place of the model's transformer, text encoder or VAE."))
	for _, c := range []engine.Component{engine.Transformer, engine.TextEncoder, engine.VAE} {
		field := widgets.NewEscapeEntry()
		e := &field.Entry
		e.SetPlaceHolder(componentName(c) + " file")
		e.OnChanged = func(string) { f.check() }
		f.Parts[c] = e
		pick := widget.NewButtonWithIcon("", theme.FileIcon(), func() {
			m.BrowseWeightFile(firstOf(e.Text, f.Path.Text), func(p string) { e.SetText(p) })
		})
		clear := widget.NewButtonWithIcon("", theme.ContentClearIcon(), func() { e.SetText("") })
		label := widget.NewLabel(componentName(c))
		partsBox.Add(container.NewBorder(nil, nil, label, container.NewHBox(pick, clear), field))
	}
	f.fill(m.Spec)
	f.Path.OnChanged = func(string) {
		f.pick, f.variantChoice = nil, ""
		f.check()
	}

	help := widgets.Markdown("A diffusers folder (`model_index.json`), a ComfyUI `models` folder, or a transformer file " +
		"(`.gguf` or `.safetensors`); you can drop them on this window. " +
		"LoRA and LoKr files are not models: add them under Adapters.")
	help.Wrapping = fyne.TextWrapWord
	dl, release := m.NewDownloadPanel()
	devBox, releaseDev := m.newDeviceSection()
	content := container.NewVBox(
		shell.SectionTitle("Model"),
		container.NewBorder(nil, nil, nil, container.NewHBox(folder, file), path),
		f.ComboBox, f.VariantBox,
		f.Checking, f.Status,
		partsBox,
		help,
		widget.NewSeparator(),
		devBox,
		widget.NewSeparator(),
		dl.Box)
	f.Content = content
	d := dialog.NewCustomWithoutButtons("Model", container.NewVScroll(content), m.sh.Win)
	m.Dlg, m.Form = d, f
	d.SetOnClosed(func() {
		release()
		releaseDev()
		if m.Dlg == d {
			m.Dlg, m.Form = nil, nil
		}
	})
	cancel := widget.NewButton("Close", d.Hide)
	f.Use = widget.NewButtonWithIcon("Use this model", theme.ConfirmIcon(), func() {
		if f.OK && m.use(f.Res.spec, f.Res.Src, f.Res.Info, nil, true, false) == nil {
			d.Hide()
		}
	})
	f.Use.Importance = widget.HighImportance
	d.SetButtons([]fyne.CanvasObject{cancel, f.Use})
	f.check()
	d.Resize(fyne.NewSize(720, 680))
	d.Show()
	m.sh.EscapeCloses(d, content)
}

// fill puts sp into the form: a ComfyUI folder's files are its combination, other files
// replace parts.
func (f *Form) fill(sp Spec) {
	f.Path.SetText(sp.Path)
	f.variantChoice, f.VAEGroups = sp.Variant, sp.VAEGroups
	if sp.Path != "" && source.Kind(sp.Path) == source.KindComfy {
		f.pick = &engine.Combination{Transformer: sp.Transformer, TextEncoder: sp.TextEncoder, VAE: sp.VAE}
		return
	}
	f.Parts[engine.Transformer].SetText(sp.Transformer)
	f.Parts[engine.TextEncoder].SetText(sp.TextEncoder)
	f.Parts[engine.VAE].SetText(sp.VAE)
}

// spec is the model the form names (without a ComfyUI combination: readModelForm adds it).
func (f *Form) spec() Spec {
	return Spec{Path: f.Path.Text, Transformer: f.Parts[engine.Transformer].Text,
		TextEncoder: f.Parts[engine.TextEncoder].Text, VAE: f.Parts[engine.VAE].Text, Variant: f.variantChoice, VAEGroups: f.VAEGroups}.clean()
}

// check reads the model the form names in the background and shows what was found.
func (f *Form) check() {
	if f.quiet || f.Use == nil {
		return
	}
	f.gen++
	my := f.gen
	f.OK = false
	f.Use.Disable()
	sp := f.spec()
	if sp.Empty() {
		f.Checking.Hide()
		f.ComboBox.Hide()
		f.VariantBox.Hide()
		f.setReport(SourceReport(engine.ModelInfo{}, ErrNoModel, f.mem, false))
		return
	}
	f.setReport("Reading the model…")
	f.Checking.Show()
	pick := f.pick
	sh := f.m.sh
	sh.BG.Add(1)
	go func() {
		defer sh.BG.Done()
		r := readModelForm(sh.Life, sp, pick)
		sh.Post(func() {
			if my == f.gen {
				f.show(r)
			}
		})
	}()
}

// show puts a check's result on screen (UI goroutine).
func (f *Form) show(r formResult) {
	f.Res = r
	f.Checking.Hide()
	f.quiet = true
	if r.root != "" && len(r.combos) > 0 {
		labels := make([]string, len(r.combos))
		sel := ""
		for i, c := range r.combos {
			labels[i] = comboLabel(c)
			if c.Transformer == r.spec.Transformer && c.TextEncoder == r.spec.TextEncoder && c.VAE == r.spec.VAE {
				sel = labels[i]
			}
		}
		f.Combo.Options = labels
		f.Combo.SetSelected(sel)
		f.Combo.Refresh()
		f.ComboBox.Show()
	} else {
		f.ComboBox.Hide()
	}
	if r.open {
		if r.Info.Distilled {
			f.Variant.SetSelected(VariantDistilledLabel)
		} else {
			f.Variant.SetSelected(VariantBaseLabel)
		}
		f.VariantBox.Show()
	} else {
		f.VariantBox.Hide()
	}
	f.quiet = false
	switch {
	case r.err != nil:
		f.setReport(SourceReport(r.Info, r.err, f.mem, r.open))
	case r.checkErr != nil:
		f.Status.Segments = []widget.RichTextSegment{&widget.TextSegment{
			Style: widget.RichTextStyleStrong, Text: "This model cannot be used: "},
			&widget.TextSegment{Style: widget.RichTextStyleInline, Text: r.checkErr.Error()}}
		f.Status.Refresh()
		f.Report = f.Status.String()
	default:
		f.setReport(SourceReport(r.Info, nil, f.mem, r.open))
		f.OK = true
		f.Use.Enable()
	}
	f.Content.Refresh() // the parts shown or hidden change the layout
}

// setReport shows md in the status.
func (f *Form) setReport(md string) {
	f.Report = md
	widgets.SetMarkdown(f.Status, md)
}

// comboChanged takes the ComfyUI combination chosen in the list.
func (f *Form) comboChanged(label string) {
	if f.quiet {
		return
	}
	for _, c := range f.Res.combos {
		if comboLabel(c) == label {
			f.pick = &c
			f.check()
			return
		}
	}
}

// variantChanged takes the variant chosen for files that do not tell.
func (f *Form) variantChanged(label string) {
	if f.quiet {
		return
	}
	switch label {
	case VariantDistilledLabel:
		f.variantChoice = "distilled"
	case VariantBaseLabel:
		f.variantChoice = "base"
	default:
		return
	}
	f.check()
}
