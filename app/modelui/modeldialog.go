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
	variantDistilledLabel = "Distilled (4 steps)"
	variantBaseLabel      = "Base (more steps, guidance)"
)

// modelForm is the model dialog's form: the model's path, the files that replace its parts,
// the ComfyUI combination and the variant, and what the latest check found. Checks read the
// model off the UI goroutine; "Use this model" takes the Source the check read.
type modelForm struct {
	m *Model

	Path       *widget.Entry
	parts      map[engine.Component]*widget.Entry
	combo      *widgets.EscapeSelect
	comboBox   *fyne.Container
	variant    *widget.RadioGroup
	variantBox *fyne.Container
	status     *widget.RichText
	checking   *widget.ProgressBarInfinite
	use        *widget.Button
	mem        sysmem.Status

	// pick is the ComfyUI combination chosen (nil: the engine's choice); variantChoice
	// "distilled" or "base" when chosen.
	pick          *engine.Combination
	variantChoice string
	vaeGroups     int  // Spec.vaeGroups, kept from the model in use
	quiet         bool // widgets are being set from a result: their OnChanged do nothing
	gen           int  // the latest check; older results are dropped
	res           formResult
	ok            bool   // res is usable
	report        string // the Markdown shown in status
	content       *fyne.Container
}

// formResult is what a check of the form found.
type formResult struct {
	spec     Spec // with a ComfyUI folder's combination pinned
	src      engine.Source
	info     engine.ModelInfo
	err      error // openSpec's
	checkErr error // checkSource's
	open     bool  // variantOpen
	root     string
	combos   []engine.Combination
}

// readModelForm reads and checks the model sp names (off the UI goroutine). In a ComfyUI
// folder, pick's files stand in for the parts sp does not name.
func readModelForm(ctx context.Context, sp Spec, pick *engine.Combination) formResult {
	var r formResult
	r.root, r.combos = comfyChoices(sp.path, sp.vaeGroups)
	if r.root != "" && len(r.combos) > 0 {
		// The chosen combination (else the engine's) supplies the parts not replaced.
		c := preferredCombo(r.combos)
		if pick != nil && slices.Contains(r.combos, *pick) {
			c = *pick
		}
		sp.transformer = firstOf(sp.transformer, c.Transformer)
		sp.textEncoder = firstOf(sp.textEncoder, c.TextEncoder)
		sp.vae = firstOf(sp.vae, c.VAE)
	}
	r.src, r.info, r.err = openSpec(sp)
	if r.err == nil && r.root != "" {
		for _, f := range r.info.Files { // the combination used, so that it is what is remembered
			switch f.Component {
			case engine.Transformer:
				sp.transformer = f.Path
			case engine.TextEncoder:
				sp.textEncoder = f.Path
			case engine.VAE:
				sp.vae = f.Path
			}
		}
	}
	r.spec = sp
	if r.err == nil {
		r.checkErr = checkSource(ctx, r.src)
	}
	r.open = variantOpen(r.src)
	return r
}

// ShowDialog is ShowModelDialog.
func (m *Model) ShowDialog() {
	f := &modelForm{m: m, mem: sysmem.Read(), parts: map[engine.Component]*widget.Entry{}}
	path := widgets.NewEscapeEntry() // Escape closes the dialog also while a field has the focus
	f.Path = &path.Entry
	f.Path.SetPlaceHolder("Model folder or file, e.g. ~/models/FLUX.2-klein-4B or ~/ComfyUI/models")
	f.status = widgets.Markdown("")
	f.status.Wrapping = fyne.TextWrapWord
	f.checking = widget.NewProgressBarInfinite()
	f.checking.Hide()
	f.combo = widgets.NewEscapeSelect(nil, f.comboChanged)
	f.comboBox = container.NewVBox(shell.SectionTitle("Combination"), shell.Hint("The ComfyUI folder holds several usable sets of files: choose one."), f.combo)
	f.comboBox.Hide()
	f.variant = widget.NewRadioGroup([]string{variantDistilledLabel, variantBaseLabel}, f.variantChanged)
	f.variantBox = container.NewVBox(shell.SectionTitle("Variant"), shell.Hint("The files do not say whether this is the distilled or the base model: choose."), f.variant)
	f.variantBox.Hide()

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
		f.parts[c] = e
		pick := widget.NewButtonWithIcon("", theme.FileIcon(), func() {
			m.BrowseWeightFile(firstOf(e.Text, f.Path.Text), func(p string) { e.SetText(p) })
		})
		clear := widget.NewButtonWithIcon("", theme.ContentClearIcon(), func() { e.SetText("") })
		label := widget.NewLabel(componentName(c))
		partsBox.Add(container.NewBorder(nil, nil, label, container.NewHBox(pick, clear), field))
	}
	f.fill(m.spec)
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
		f.comboBox, f.variantBox,
		f.checking, f.status,
		partsBox,
		help,
		widget.NewSeparator(),
		devBox,
		widget.NewSeparator(),
		dl.Box)
	f.content = content
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
	f.use = widget.NewButtonWithIcon("Use this model", theme.ConfirmIcon(), func() {
		if f.ok && m.use(f.res.spec, f.res.src, f.res.info, nil, true, false) == nil {
			d.Hide()
		}
	})
	f.use.Importance = widget.HighImportance
	d.SetButtons([]fyne.CanvasObject{cancel, f.use})
	f.check()
	d.Resize(fyne.NewSize(720, 680))
	d.Show()
	m.sh.EscapeCloses(d, content)
}

// fill puts sp into the form: a ComfyUI folder's files are its combination, other files
// replace parts.
func (f *modelForm) fill(sp Spec) {
	f.Path.SetText(sp.path)
	f.variantChoice, f.vaeGroups = sp.variant, sp.vaeGroups
	if sp.path != "" && source.Kind(sp.path) == source.KindComfy {
		f.pick = &engine.Combination{Transformer: sp.transformer, TextEncoder: sp.textEncoder, VAE: sp.vae}
		return
	}
	f.parts[engine.Transformer].SetText(sp.transformer)
	f.parts[engine.TextEncoder].SetText(sp.textEncoder)
	f.parts[engine.VAE].SetText(sp.vae)
}

// spec is the model the form names (without a ComfyUI combination: readModelForm adds it).
func (f *modelForm) spec() Spec {
	return Spec{path: f.Path.Text, transformer: f.parts[engine.Transformer].Text,
		textEncoder: f.parts[engine.TextEncoder].Text, vae: f.parts[engine.VAE].Text, variant: f.variantChoice, vaeGroups: f.vaeGroups}.clean()
}

// check reads the model the form names in the background and shows what was found.
func (f *modelForm) check() {
	if f.quiet || f.use == nil {
		return
	}
	f.gen++
	my := f.gen
	f.ok = false
	f.use.Disable()
	sp := f.spec()
	if sp.Empty() {
		f.checking.Hide()
		f.comboBox.Hide()
		f.variantBox.Hide()
		f.setReport(sourceReport(engine.ModelInfo{}, ErrNoModel, f.mem, false))
		return
	}
	f.setReport("Reading the model…")
	f.checking.Show()
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
func (f *modelForm) show(r formResult) {
	f.res = r
	f.checking.Hide()
	f.quiet = true
	if r.root != "" && len(r.combos) > 0 {
		labels := make([]string, len(r.combos))
		sel := ""
		for i, c := range r.combos {
			labels[i] = comboLabel(c)
			if c.Transformer == r.spec.transformer && c.TextEncoder == r.spec.textEncoder && c.VAE == r.spec.vae {
				sel = labels[i]
			}
		}
		f.combo.Options = labels
		f.combo.SetSelected(sel)
		f.combo.Refresh()
		f.comboBox.Show()
	} else {
		f.comboBox.Hide()
	}
	if r.open {
		if r.info.Distilled {
			f.variant.SetSelected(variantDistilledLabel)
		} else {
			f.variant.SetSelected(variantBaseLabel)
		}
		f.variantBox.Show()
	} else {
		f.variantBox.Hide()
	}
	f.quiet = false
	switch {
	case r.err != nil:
		f.setReport(sourceReport(r.info, r.err, f.mem, r.open))
	case r.checkErr != nil:
		f.status.Segments = []widget.RichTextSegment{&widget.TextSegment{
			Style: widget.RichTextStyleStrong, Text: "This model cannot be used: "},
			&widget.TextSegment{Style: widget.RichTextStyleInline, Text: r.checkErr.Error()}}
		f.status.Refresh()
		f.report = f.status.String()
	default:
		f.setReport(sourceReport(r.info, nil, f.mem, r.open))
		f.ok = true
		f.use.Enable()
	}
	f.content.Refresh() // the parts shown or hidden change the layout
}

// setReport shows md in the status.
func (f *modelForm) setReport(md string) {
	f.report = md
	widgets.SetMarkdown(f.status, md)
}

// comboChanged takes the ComfyUI combination chosen in the list.
func (f *modelForm) comboChanged(label string) {
	if f.quiet {
		return
	}
	for _, c := range f.res.combos {
		if comboLabel(c) == label {
			f.pick = &c
			f.check()
			return
		}
	}
}

// variantChanged takes the variant chosen for files that do not tell.
func (f *modelForm) variantChanged(label string) {
	if f.quiet {
		return
	}
	switch label {
	case variantDistilledLabel:
		f.variantChoice = "distilled"
	case variantBaseLabel:
		f.variantChoice = "base"
	default:
		return
	}
	f.check()
}
