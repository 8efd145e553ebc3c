package inputs

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/chooser"
	"kleinbild/app/humanize"
	"kleinbild/app/imagefile"
	"kleinbild/app/settings"
	"kleinbild/app/shell"
	"kleinbild/app/userdirs"
	"kleinbild/app/widgets"
	"kleinbild/engine/flux2"
	"kleinbild/engine/lora"
	"kleinbild/engine/qwen3"
	"kleinbild/estimate"
)

// Adapters is the form's "Adapters" section: LoRA/LoKr files, each with an on/off
// switch, a strength slider and number field (±lora.MaxStrength) and a remove button, and
// the LoRA folder's files to add from (lorafolder.go). Generations apply the switched-on
// ones (stack). An adapter whose keys match the model only in part stays off until the user
// accepts the list of keys that match nothing; one made for another model cannot be
// switched on. The list is remembered in the settings.
type Adapters struct {
	sh *shell.Shell
	AdaptersDeps
	entries []*adapterEntry
	list    *fyne.Container
	upper   *fyne.Container // list, err and hint: what grows above the LoRA folder
	hint    *widget.RichText
	err     *widget.Label
	folder  loraFolder
	lastDir string // the folder adapters were last added from by the chooser (this session)
	// layers are the current model's adaptable layers (nil: no model known).
	layers map[lora.Component]lora.Layers
	// formScroll is the form's scroll, which the wheel over the section's fields moves.
	formScroll fyne.Scrollable
}

// AdaptersDeps is what the adapters use of the other components; UI.wire gives it.
type AdaptersDeps struct {
	// EstimateSoon asks the fit line for a new estimate; FormChanged remembers the form.
	EstimateSoon, FormChanged func()
}

// NewAdapters makes the Adapters section (built by Build).
func NewAdapters(sh *shell.Shell, deps AdaptersDeps) Adapters {
	return Adapters{sh: sh, AdaptersDeps: deps}
}

// adapterEntry is one adapter of the list.
type adapterEntry struct {
	a        *lora.Adapter
	on       *widget.Check
	strength *widget.Slider
	value    *widgets.ShortcutEntry // the strength as a number
	status   *widget.Label          // why it cannot be used, or what it lacks
	row      *fyne.Container
	// fit is the adapter's fit to the model: nil, or a *lora.FitError that is partial
	// (keys that match nothing) or a mismatch (no Mismatched: partial).
	fit *lora.FitError
	// partial is set once the user accepted that some keys match nothing.
	partial bool
	syncing bool // the slider and the field are being brought into step
}

// strengthStep is the slider's step.
const strengthStep = 0.05

// Build creates the Adapters section of the form.
func (s *Adapters) Build() fyne.CanvasObject {
	add := widget.NewButtonWithIcon("Add…", theme.ContentAddIcon(), func() { s.showAdd() })
	add.Importance = widget.LowImportance
	s.list = container.NewVBox()
	s.hint = shell.Hint("LoRA or LoKr files (.safetensors) change the model's style or subject; each has a strength, negative to push away. Drop them onto the window, press Add…, or pick them from your LoRA folder.")
	s.err = shell.FieldError()
	s.upper = container.NewVBox(s.list, s.err, s.hint)
	return container.NewVBox(
		container.NewBorder(nil, nil, nil, add, shell.SectionTitle("Adapters")),
		s.upper, s.folder.build(s))
}

// showAdd opens the chooser for adapter files (several can be ticked), in the folder
// adapters were last added from, else the LoRA folder, else the home folder.
func (s *Adapters) showAdd() *chooser.Chooser {
	last := s.lastDir
	if last == "" {
		last = s.folder.dir
	}
	return chooser.Open(s.sh, "Add adapters", adapterFiles(), func() string {
		home, cfg := userdirs.Dirs()
		return userdirs.Start(last, home, cfg, runtime.GOOS)
	}, func(paths []string) {
		s.lastDir = filepath.Dir(paths[len(paths)-1])
		s.AddFiles(paths, true)
	})
}

// PassScrollTo makes the wheel over the section's fields (each strength, the LoRA folder's
// search) scroll the form's scroll instead of stopping there.
func (s *Adapters) PassScrollTo(scroll fyne.Scrollable) {
	s.formScroll = scroll
	for _, e := range s.entries {
		e.value.PassScrollTo(scroll)
	}
	s.folder.search.PassScrollTo(scroll)
}

// isAdapterName reports whether a file name is that of an adapter file (*.safetensors),
// for listing; dropped files are told by their content (isSafetensors).
func isAdapterName(name string) bool { return strings.EqualFold(filepath.Ext(name), ".safetensors") }

// adapterFiles are the files of the adapters' chooser: adapter files by name (any typed
// file is taken, and told by its content), several at once.
func adapterFiles() chooser.Files {
	return chooser.Files{Want: isAdapterName, Summary: adapterChooserSummary}
}

// adapterChooserSummary describes a folder listed by the adapters' chooser.
func adapterChooserSummary(files, dirs int) string {
	what := humanize.CountList(files, "adapter file", "adapter files", dirs, "folder", "folders")
	switch {
	case files == 0 && dirs == 0:
		return "No adapter files (.safetensors) here."
	case files == 0:
		return "No adapter files (.safetensors) here (" + what + ")."
	}
	return what + ". Tick the adapters to add; you can tick files in several folders."
}

// showErr shows msg under the list ("" hides it).
func (s *Adapters) showErr(err error) {
	msg := ""
	if err != nil {
		msg = shell.Sentence(err.Error())
	}
	shell.SetFieldError(s.err, msg)
}

// AddFiles reads adapter files off the UI goroutine and adds them at strength 1; problems
// are shown under the list (and, with loud, in the banner). The channel is closed once the
// result is applied.
func (s *Adapters) AddFiles(paths []string, loud bool) <-chan struct{} {
	return s.addFilesThen(paths, loud, nil)
}

// addFilesThen is AddFiles; then, when set, runs on the UI goroutine right after the
// adapters are added (before the window is drawn again).
func (s *Adapters) addFilesThen(paths []string, loud bool, then func()) <-chan struct{} {
	done := make(chan struct{})
	sh := s.sh
	sh.BG.Add(1)
	go func() {
		defer sh.BG.Done()
		loaded, err := openAdapters(paths)
		sh.Post(func() {
			defer close(done)
			for _, a := range loaded {
				s.add(a, settings.Adapter{Path: a.Path, Strength: 1}, true)
			}
			if then != nil {
				then()
			}
			s.showErr(err)
			if err != nil && loud {
				sh.ShowError(err)
			}
			if len(loaded) > 0 {
				s.changed()
				sh.SetStatus(fmt.Sprintf("Added %s as an adapter.", adapterNames(loaded)))
			}
		})
	}()
	return done
}

// openAdapters opens each file (any goroutine); the error joins every file's problem.
func openAdapters(paths []string) ([]*lora.Adapter, error) {
	var out []*lora.Adapter
	var errs []error
	for _, p := range paths {
		a, err := lora.Open(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("cannot use %s as an adapter: %s", filepath.Base(p), adapterError(err)))
			continue
		}
		out = append(out, a)
	}
	return out, errors.Join(errs...)
}

// adapterNames lists the adapters' file names.
func adapterNames(as []*lora.Adapter) string {
	var names []string
	for _, a := range as {
		names = append(names, filepath.Base(a.Path))
	}
	return strings.Join(names, ", ")
}

// add appends a to the list with the remembered state st; ask shows the partial-match
// question at once when the adapter needs it.
func (s *Adapters) add(a *lora.Adapter, st settings.Adapter, ask bool) *adapterEntry {
	e := &adapterEntry{a: a, value: widgets.NewShortcutEntry(false, nil), status: widget.NewLabel(""), partial: st.Partial}
	if s.formScroll != nil {
		e.value.PassScrollTo(s.formScroll) // the wheel over the field scrolls the form
	}
	e.value.PassOn = s.sh.PassKey // Ctrl+Q and Ctrl+L work while it has the focus
	e.status.Wrapping = fyne.TextWrapWord
	e.status.SizeName = theme.SizeNameCaptionText
	// A long name is shortened: in full it widened the form over the viewer and pushed the
	// ✕ and the strength out of sight (issue 36 defect 3).
	e.on = widget.NewCheck(widgets.ShortName(filepath.Base(a.Path), adapterNameRunes), nil)
	e.strength = widget.NewSlider(-lora.MaxStrength, lora.MaxStrength)
	e.strength.Step = strengthStep
	e.strength.OnChanged = func(v float64) {
		if !e.syncing {
			e.syncing = true
			e.value.SetText(imagefile.FormatStrength(v))
			e.syncing = false
		}
	}
	// SetValue fires OnChangeEnded too (Fyne 2.7): setStrength's own changes (the restore
	// of remembered adapters) must not remember the list while it is incomplete.
	e.strength.OnChangeEnded = func(float64) {
		if !e.syncing {
			s.changed()
		}
	}
	e.value.OnChanged = func(t string) {
		if !e.syncing {
			s.strengthTyped(e, t)
		}
	}
	s.setStrength(e, st.Strength)
	rm := widget.NewButtonWithIcon("", theme.CancelIcon(), func() { s.remove(e) })
	rm.Importance = widget.LowImportance
	valueBox := container.NewGridWrap(fyne.NewSize(72, e.value.MinSize().Height), e.value)
	e.row = container.NewVBox(container.NewBorder(nil, nil, nil, rm, e.on),
		container.NewBorder(nil, nil, nil, valueBox, e.strength), shell.Hint(describeAdapter(a.Summary())), e.status)
	s.entries = append(s.entries, e)
	s.list.Add(e.row)
	s.hint.Hide()
	s.checkFit(e)
	e.on.SetChecked(!st.Off && s.usable(e))
	e.on.OnChanged = func(on bool) { s.switched(e, on) }
	if ask && !st.Off && e.fit != nil && len(e.fit.Mismatched) == 0 && !e.partial {
		s.askPartial(e)
	}
	s.EstimateSoon()
	return e
}

// adapterNameRunes is the most runes of an adapter's file name its switch shows.
const adapterNameRunes = 28

// setStrength puts v in the slider and the field.
func (s *Adapters) setStrength(e *adapterEntry, v float64) {
	e.syncing = true
	e.strength.SetValue(v)
	e.value.SetText(imagefile.FormatStrength(v))
	e.syncing = false
}

// strengthTyped takes a strength typed into the number field: a number within
// ±lora.MaxStrength moves the slider; anything else is reported and changes nothing.
func (s *Adapters) strengthTyped(e *adapterEntry, t string) {
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.ReplaceAll(t, "−", "-")), 64)
	if err != nil || math.IsNaN(v) || math.Abs(v) > lora.MaxStrength {
		e.status.Importance = widget.DangerImportance
		e.status.SetText(fmt.Sprintf("The strength must be a number from −%d to %d.", lora.MaxStrength, lora.MaxStrength))
		e.status.Show()
		return
	}
	e.syncing = true
	e.strength.SetValue(v)
	e.syncing = false
	s.showStatus(e)
	s.changed()
}

// strengthOf is the entry's strength: the field's when valid, else the slider's.
func strengthOf(e *adapterEntry) float64 {
	if v, err := strconv.ParseFloat(strings.TrimSpace(strings.ReplaceAll(e.value.Text, "−", "-")), 64); err == nil && math.Abs(v) <= lora.MaxStrength {
		return v
	}
	return e.strength.Value
}

// switched handles the on/off switch: an adapter for another model stays off; one that
// matches only in part asks first.
func (s *Adapters) switched(e *adapterEntry, on bool) {
	if on && !s.usable(e) {
		e.on.SetChecked(false)
		if e.fit != nil && len(e.fit.Mismatched) == 0 {
			s.askPartial(e)
		}
		return
	}
	s.changed()
}

// usable reports whether e may be switched on: it fits, or its partial match was accepted.
func (s *Adapters) usable(e *adapterEntry) bool {
	return e.fit == nil || (len(e.fit.Mismatched) == 0 && e.partial)
}

// askPartial shows the keys of e that match nothing and switches e on if the user accepts.
func (s *Adapters) askPartial(e *adapterEntry) {
	keys := widget.NewLabel(partialList(e.fit))
	keys.Wrapping = fyne.TextWrapWord
	scroll := container.NewVScroll(keys)
	scroll.SetMinSize(fyne.NewSize(480, 220))
	msg := widget.NewLabel(filepath.Base(e.a.Path) + " matches this model only in part: what is listed below is left out. The rest applies; the image may not look as its author meant.")
	msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomConfirm("Use the adapter in part?", "Use anyway", "Cancel",
		container.NewBorder(msg, nil, nil, nil, scroll), func(ok bool) {
			if !ok {
				return
			}
			e.partial = true
			s.showStatus(e)
			e.on.SetChecked(true) // switched: remembers
		}, s.sh.Win)
	d.Resize(fyne.NewSize(560, 400))
	d.Show()
}

// maxListedKeys bounds the keys listed in the partial-match question.
const maxListedKeys = 200

// partialList lists what of an adapter matches nothing, one key per line.
func partialList(fe *lora.FitError) string {
	var lines []string
	add := func(title string, keys []string) {
		if len(keys) == 0 {
			return
		}
		lines = append(lines, fmt.Sprintf("%s (%d):", title, len(keys)))
		for i, k := range keys {
			if i == maxListedKeys {
				lines = append(lines, fmt.Sprintf("  … %d more", len(keys)-i))
				break
			}
			lines = append(lines, "  "+k)
		}
	}
	add("Keys that match nothing", fe.Unmatched)
	add("Layers this model does not have", fe.Missing)
	return strings.Join(lines, "\n")
}

// checkFit works out e's fit to the current model (without one: only the keys that match
// nothing at all) and shows it.
func (s *Adapters) checkFit(e *adapterEntry) {
	e.fit = nil
	var err error
	if s.layers != nil {
		err = e.a.Check(s.layers, false)
	} else if len(e.a.Unmatched) > 0 {
		err = &lora.FitError{Path: e.a.Path, Unmatched: e.a.Unmatched}
	}
	var fe *lora.FitError
	if errors.As(err, &fe) {
		e.fit = fe
	} else if err != nil {
		e.fit = &lora.FitError{Path: e.a.Path, Mismatched: []string{err.Error()}}
	}
	s.showStatus(e)
}

// showStatus shows what keeps e from applying in full, if anything.
func (s *Adapters) showStatus(e *adapterEntry) {
	switch {
	case e.fit == nil:
		e.status.SetText("")
		e.status.Hide()
		return
	case len(e.fit.Mismatched) > 0:
		e.status.Importance = widget.DangerImportance
		e.status.SetText(shell.Sentence(e.fit.Problem()) + ". It cannot be used with this model.")
	case e.partial:
		e.status.Importance = widget.WarningImportance
		e.status.SetText("Partial match accepted: " + leftOut(e.fit) + " left out.")
	default:
		e.status.Importance = widget.WarningImportance
		e.status.SetText("Matches this model only in part (" + leftOut(e.fit) + " left out): switch it on to review the list and accept.")
	}
	e.status.Show()
	e.status.Refresh()
}

// SetModel checks every adapter against the model whose shapes m describes (nil: none
// known); one that no longer fits is switched off.
func (s *Adapters) SetModel(m *estimate.Model) {
	s.layers = nil
	if m != nil {
		s.layers = map[lora.Component]lora.Layers{
			lora.Transformer: lora.LayersOf(flux2.TensorSpecs(m.Transformer)),
			lora.TextEncoder: qwen3.Layers(m.Encoder),
		}
	}
	for _, e := range s.entries {
		s.checkFit(e)
		if e.on.Checked && !s.usable(e) {
			e.on.SetChecked(false)
		}
	}
}

func (s *Adapters) remove(e *adapterEntry) {
	for i, x := range s.entries {
		if x == e {
			s.entries = append(s.entries[:i], s.entries[i+1:]...)
			break
		}
	}
	s.list.Remove(e.row)
	if len(s.entries) == 0 {
		s.hint.Show()
	}
	s.changed()
}

// changed remembers the list and redoes the fit estimate.
func (s *Adapters) changed() {
	s.sh.Settings.Adapters = s.remembered()
	s.FormChanged()
	s.EstimateSoon()
}

// remembered is the list as the settings keep it.
func (s *Adapters) remembered() []settings.Adapter {
	var out []settings.Adapter
	for _, e := range s.entries {
		out = append(out, settings.Adapter{Path: e.a.Path, Strength: strengthOf(e), Off: !e.on.Checked, Partial: e.partial})
	}
	return out
}

// Stack is the switched-on adapters with their strengths, for a request.
func (s *Adapters) Stack() lora.Stack {
	var st lora.Stack
	for _, e := range s.entries {
		if e.on.Checked && s.usable(e) {
			st = append(st, lora.Weighted{Adapter: e.a, Strength: float32(strengthOf(e))})
		}
	}
	return st
}

// Partial reports whether a switched-on adapter is used with a Partial match the user
// accepted (engine.Request.AdaptersPartial).
func (s *Adapters) Partial() bool {
	for _, e := range s.entries {
		if e.on.Checked && e.fit != nil && e.partial {
			return true
		}
	}
	return false
}

// leftOut counts what of a partial match is left out, in words.
func leftOut(fe *lora.FitError) string {
	return humanize.CountList(len(fe.Unmatched), "key", "keys", len(fe.Missing), "layer", "layers")
}

// adapterError is what is wrong with the adapter file of err (from package lora), without
// the package's words or the file's path (lora.Reason).
func adapterError(err error) string { return lora.Reason(err) }
