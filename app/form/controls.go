// Package form is the generation form of the window: the prompt, size, steps, guidance,
// schedule, noise, seed and images per run, checked as they are typed and remembered; the
// fit line's estimate under Generate; and the toggle that hides the form. It knows the other
// components (references, adapters, model, runner, viewer) only through its Deps.
package form

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/jobs"
	"kleinbild/app/recentprompts"
	"kleinbild/app/settings"
	"kleinbild/app/shell"
	"kleinbild/app/widgets"
	"kleinbild/engine"
	"kleinbild/resources"
)

// Side and step limits: engine.CheckSize's and engine.MaxSteps, the rules the CLI applies too.
const (
	minSide  = engine.MinSidePx
	maxSide  = engine.MaxSidePx
	maxSteps = engine.MaxSteps
)

type sizePreset struct {
	label string
	w, h  int
}

// sizePresets are the sizes offered in the size menu; "Custom" covers everything else.
var sizePresets = []sizePreset{
	{"Square 256 × 256", 256, 256},
	{"Square 512 × 512", 512, 512},
	{"Square 768 × 768", 768, 768},
	{"Square 1024 × 1024", 1024, 1024},
	{"Portrait 3:4 · 768 × 1024", 768, 1024},
	{"Landscape 4:3 · 1024 × 768", 1024, 768},
	{"Portrait 9:16 · 576 × 1024", 576, 1024},
	{"Landscape 16:9 · 1024 × 576", 1024, 576},
}

const customSize = "Custom"

// Controls are the generation settings in the side panel. The exported widgets are the
// window's to pass keys on from (and its tests' to drive); the rest is the form's own.
type Controls struct {
	sh *shell.Shell
	Deps

	Prompt    *widgets.ShortcutEntry
	PromptErr *widget.Label
	History   *recentprompts.Recent // recent prompts

	preset        *widget.Select
	aspect        *widget.Select // aspect ratios and "use the image's size" (aspect.go)
	Width, Height *widgets.ShortcutEntry
	SizeErr       *widget.Label
	syncing       bool // set while code updates the size widgets

	Steps        *widgets.ShortcutEntry
	stepsErr     *widget.Label
	stepsDefault int

	guidance    *widget.Slider
	guidanceVal *widget.Label
	// Negative is the negative prompt, in GuidanceBox: CFG's unconditional input.
	Negative    *widgets.ShortcutEntry
	negativeErr *widget.Label
	GuidanceBox *fyne.Container
	// lastFocus is the focused control the form last scrolled to (focusfollow.go), and
	// focusOffset the form's scroll offset it left.
	lastFocus   fyne.Focusable
	focusOffset float32
	// guidanceDefault is the variant's default, replaced on a model change unless edited.
	guidanceDefault float64

	schedule  *widget.Select
	schedules []settings.ScheduleChoice // the menu's entries (settings.ScheduleChoices)
	noise     *widget.Select            // the kind of initial noise (noisechoice.go)

	Seed       *widgets.ShortcutEntry
	seedErr    *widget.Label
	seedLocked bool
	// lastSeed is the random seed the last run used (lastSeedSet once there was one).
	lastSeed    uint64
	lastSeedSet bool
	lock        *widgets.TipButton
	dice        *widgets.TipButton
	// keptSeed shows beside Generate while the seed is locked, and unlocks it: the lock
	// by the seed field is often below the fold (issue 36 item 24).
	keptSeed *widgets.TipButton

	// count is the number of images per run (jobs.MinCount..jobs.MaxCount).
	count *widget.Select

	Generate *widget.Button
	// Fit says whether the generation fits in memory (see FitLine.Update).
	Fit *widget.Label

	Box    *fyne.Container   // the whole panel
	Scroll *container.Scroll // the form's scroll (the references are at its end)

	// formTimer writes the edited form after a pause in typing (see FormChanged);
	// formWatched is set once the remembered settings are in the controls.
	formTimer   *time.Timer
	formWatched bool
}

// NewControls makes the form, unbuilt (Build); d is what it uses of the other components.
func NewControls(sh *shell.Shell, d Deps) Controls { return Controls{sh: sh, Deps: d} }

// Build creates the side panel: the form, the references and the Generate button, with
// the other components' parts p.
func (c *Controls) Build(p PanelParts) fyne.CanvasObject {
	c.Prompt = widgets.NewShortcutEntry(true, c.OnGenerate)
	c.Prompt.SetPlaceHolder("Describe the image you want…")
	c.Prompt.SetMinRowsVisible(5)
	c.PromptErr = shell.FieldError()
	c.Prompt.OnChanged = func(s string) { // "Describe the image first." goes once it is described
		if strings.TrimSpace(s) != "" && engine.ValidatePrompt(strings.TrimSpace(s)) == nil {
			shell.SetFieldError(c.PromptErr, "")
		}
	}
	c.History = recentprompts.New(filepath.Join(c.sh.DataDir, "history.json"), c.sh.Tips, c.sh.Win.Canvas(),
		func(p string) { c.Prompt.SetText(p) }, func(err error) { c.sh.Post(func() { c.sh.ShowError(err) }) })

	sizeRow := c.buildSize()

	c.Steps = widgets.NewShortcutEntry(false, c.OnGenerate)
	c.Steps.SetPlaceHolder("auto")
	c.Steps.OnChanged = func(string) {
		c.checkSteps()
		c.EstimateSoon()
	}
	c.stepsErr = shell.FieldError()

	c.guidance = widget.NewSlider(engine.MinGuidance, engine.MaxGuidance)
	c.guidance.Step = 0.5
	c.guidanceVal = widget.NewLabel("4.0")
	c.guidance.OnChanged = func(v float64) {
		c.guidanceVal.SetText(strconv.FormatFloat(v, 'f', 1, 64))
		c.EstimateSoon()
	}
	c.guidance.SetValue(4)
	c.Negative = widgets.NewShortcutEntry(false, c.OnGenerate)
	c.Negative.SetPlaceHolder("What the image should not show (optional)")
	c.Negative.OnChanged = func(string) { c.FormChanged() }
	c.negativeErr = shell.FieldError()
	c.GuidanceBox = container.NewVBox(shell.SectionTitle("Guidance"),
		container.NewBorder(nil, nil, nil, c.guidanceVal, c.guidance),
		shell.Hint("How closely the image follows the prompt (base models only)."),
		shell.SectionTitle("Negative prompt"), c.Negative, c.negativeErr)

	c.schedule = widget.NewSelect(nil, nil)
	c.setSchedule("")

	c.Seed = widgets.NewShortcutEntry(false, c.OnGenerate)
	c.Seed.SetPlaceHolder(randomPlaceholder(0, false))
	c.Seed.OnChanged = func(string) { c.seedEdited() }
	c.seedErr = shell.FieldError()
	c.dice = widgets.NewTipButton(c.sh.Tips, theme.NewThemedResource(resources.Dice), "Pick a random seed", func() {
		c.Seed.SetText(strconv.FormatUint(randomSeed(), 10))
	})
	c.dice.Importance = widget.MediumImportance
	c.lock = widgets.NewTipButton(c.sh.Tips, theme.NewThemedResource(resources.LockOpen), lockTip(false), c.toggleSeedLocked)
	c.lock.Importance = widget.MediumImportance
	seedRow := container.NewBorder(nil, nil, nil, container.NewHBox(c.dice, c.lock), c.Seed)
	c.noise = newNoiseSelect(c.FormChanged)

	var counts []string
	for n := jobs.MinCount; n <= jobs.MaxCount; n++ {
		counts = append(counts, strconv.Itoa(n))
	}
	c.count = widget.NewSelect(counts, func(string) {
		c.FormChanged()
		c.EstimateSoon() // the time shown covers every image
	})
	c.count.SetSelectedIndex(0)
	countHint := widget.NewLabel("seeds count up by one")
	countHint.SizeName = theme.SizeNameCaptionText
	countHint.Importance = widget.LowImportance
	countRow := container.NewBorder(nil, nil, nil, countHint, c.count)

	c.Generate = widget.NewButtonWithIcon("Generate", theme.NewThemedResource(resources.Sparkles), c.generateOrCancel)
	c.Generate.Importance = widget.HighImportance
	c.Fit = widget.NewLabel("")
	c.Fit.Wrapping = fyne.TextWrapWord
	c.Fit.SizeName = theme.SizeNameCaptionText
	c.Fit.Hide()

	form := container.NewVBox(
		container.NewBorder(nil, nil, nil, c.History.Button, shell.SectionTitle("Prompt")), c.Prompt, c.PromptErr,
		shell.Hint("Ctrl+Enter (⌘+Enter on macOS) generates."),
		shell.Spacer(4),
		shell.SectionTitle("Size"), c.preset, c.buildAspect(), sizeRow, c.SizeErr,
		shell.Spacer(4),
		container.New(layout.NewGridLayoutWithColumns(2),
			container.NewVBox(shell.SectionTitle("Steps"), c.Steps),
			container.NewVBox(shell.SectionTitle("Schedule"), c.schedule)),
		c.stepsErr,
		c.GuidanceBox,
		shell.Spacer(4),
		shell.SectionTitle("Seed"), seedRow, c.seedErr, noiseRow(c.noise),
		shell.Spacer(4),
		shell.SectionTitle("Images per run"), countRow,
		shell.Spacer(4),
		p.Refs(),
		shell.Spacer(4),
		p.Adapters(),
	)
	// Generate, its fit line and (while running) Cancel stay in view under the form, which
	// scrolls on its own in a short window.
	c.Scroll = container.NewVScroll(container.NewPadded(form))
	for _, e := range []*widgets.ShortcutEntry{c.Prompt, c.Width, c.Height, c.Steps, c.Negative, c.Seed} {
		e.PassScrollTo(c.Scroll) // the wheel over a field scrolls the form
		e.OnFocus = func() { c.scrollToShow(e) }
	}
	p.Scrolled(c.Scroll)
	c.keptSeed = widgets.NewTipButton(c.sh.Tips, theme.NewThemedResource(resources.Lock), lockTip(true), func() { c.setSeedLocked(false) })
	c.keptSeed.Importance = widget.HighImportance
	c.keptSeed.Hide()
	c.Box = container.NewBorder(nil, container.NewPadded(container.NewVBox(
		container.NewBorder(nil, nil, c.keptSeed, p.QueueAdd, c.Generate), p.Queue, p.WrapFit(c.Fit))), nil, nil,
		c.Scroll)
	return c.Box
}

// buildSize makes the size preset, the width and height fields and the swap button, and
// returns the row of the fields.
func (c *Controls) buildSize() fyne.CanvasObject {
	var labels []string
	for _, p := range sizePresets {
		labels = append(labels, p.label)
	}
	c.preset = widget.NewSelect(append(labels, customSize), func(s string) {
		if c.syncing {
			return
		}
		for _, p := range sizePresets {
			if p.label == s {
				c.SetSize(p.w, p.h)
			}
		}
	})
	c.Width = widgets.NewShortcutEntry(false, c.OnGenerate)
	c.Height = widgets.NewShortcutEntry(false, c.OnGenerate)
	c.SizeErr = shell.FieldError()
	for _, e := range []*widgets.ShortcutEntry{c.Width, c.Height} {
		e.OnChanged = func(string) {
			if !c.syncing {
				c.checkSize()
			}
		}
	}
	swap := widgets.NewTipButton(c.sh.Tips, theme.NewThemedResource(resources.Swap), "Swap width and height", func() {
		c.SetSize(atoiOr(c.Height.Text, 0), atoiOr(c.Width.Text, 0))
	})
	times := widget.NewLabel("×")
	return container.NewBorder(nil, nil, nil, swap,
		container.New(layout.NewGridLayoutWithColumns(2),
			container.NewBorder(nil, nil, nil, times, c.Width), c.Height))
}

// generateOrCancel is the main button's action.
func (c *Controls) generateOrCancel() {
	if c.Busy() {
		c.OnCancel()
		return
	}
	c.OnGenerate()
}

// SetSize puts w×h in the size fields and selects the matching preset.
func (c *Controls) SetSize(w, h int) {
	c.syncing = true
	c.Width.SetText(strconv.Itoa(w))
	c.Height.SetText(strconv.Itoa(h))
	c.syncing = false
	c.checkSize()
}

// checkSize validates the size fields, shows or clears the inline message and keeps the
// preset menu in step. It returns the valid size.
func (c *Controls) checkSize() (w, h int, ok bool) {
	w, wmsg := parseSide("Width", c.Width.Text)
	h, hmsg := parseSide("Height", c.Height.Text)
	msg := strings.TrimSpace(wmsg + " " + hmsg)
	shell.SetFieldError(c.SizeErr, msg)
	sel := customSize
	for _, p := range sizePresets {
		if p.w == w && p.h == h {
			sel = p.label
		}
	}
	if c.preset.Selected != sel {
		c.syncing = true
		c.preset.SetSelected(sel)
		c.syncing = false
	}
	c.syncAspect(w, h, msg == "")
	c.EstimateSoon()
	return w, h, msg == ""
}

// parseSide validates one side: a whole number that engine.CheckSize accepts.
// msg says what is wrong in a sentence, or is "".
func parseSide(name, text string) (v int, msg string) {
	text = strings.TrimSpace(text)
	v, err := strconv.Atoi(text)
	switch {
	case text == "":
		return 0, name + " is empty: enter a size in pixels."
	case err != nil:
		return 0, fmt.Sprintf("%s %q is not a whole number of pixels.", name, text)
	}
	var se *engine.SizeError
	if !errors.As(engine.CheckSize(v), &se) {
		return v, ""
	}
	if se.OutOfRange {
		return v, fmt.Sprintf("%s must be between %d and %d pixels.", name, se.Min, se.Max)
	}
	return v, fmt.Sprintf("%s must be a multiple of %d: try %d or %d.", name, engine.SizeMultiple, se.Lower, se.Upper)
}

// checkSteps reads the steps field: empty is 0 (the variant's default); a number outside
// engine.ValidateSteps' range shows the field's error and is not ok.
func (c *Controls) checkSteps() (int, bool) {
	text := strings.TrimSpace(c.Steps.Text)
	if text == "" {
		shell.SetFieldError(c.stepsErr, "")
		return 0, true // the variant's default
	}
	v, err := strconv.Atoi(text)
	if err != nil || engine.ValidateSteps(v) != nil {
		shell.SetFieldError(c.stepsErr, fmt.Sprintf("Steps must be a whole number from 1 to %d.", maxSteps))
		return 0, false
	}
	shell.SetFieldError(c.stepsErr, "")
	return v, true
}

// ApplyVariant adapts the form to the model info (usable: chosen and without error):
// guidance shows for base models only, and steps and guidance take the variant's defaults
// unless the user changed them.
func (c *Controls) ApplyVariant(info engine.ModelInfo, usable bool) {
	if usable && !info.Distilled {
		c.GuidanceBox.Show()
	} else {
		c.GuidanceBox.Hide()
	}
	if def := info.DefaultSteps; def > 0 {
		cur := strings.TrimSpace(c.Steps.Text)
		if cur == "" || cur == fmt.Sprint(c.stepsDefault) {
			c.Steps.SetText(fmt.Sprint(def))
		}
		c.stepsDefault = def
		c.Steps.SetPlaceHolder(fmt.Sprint(def))
	}
	if def := info.DefaultGuidance; def > 0 {
		if old := c.guidanceDefault; old == 0 || c.guidance.Value == old {
			c.guidance.SetValue(def)
		}
		c.guidanceDefault = def
	}
}

// scrollToShow scrolls the form, the least it can, so that o (one of its fields) is in
// view: a field given the focus (Tab, Ctrl+L) was typed into below or above the fold
// (issue 36 item 11).
func (c *Controls) scrollToShow(o fyne.CanvasObject) {
	s := c.Scroll
	if s == nil || s.Content == nil {
		return
	}
	d := fyne.CurrentApp().Driver()
	y := d.AbsolutePositionForObject(o).Y - d.AbsolutePositionForObject(s.Content).Y
	top, view := s.Offset.Y, s.Size().Height
	h := min(o.Size().Height, view)
	switch {
	case y < top:
		top = y
	case y+h > top+view:
		top = y + h - view
	default:
		return
	}
	s.Offset.Y = max(0, min(top, s.Content.Size().Height-view))
	s.Refresh()
}

// ScrollToEnd scrolls the form to its end, where the references are.
func (c *Controls) ScrollToEnd() {
	if c.Scroll != nil {
		c.Scroll.ScrollToBottom()
	}
}

// AddToHistory adds a prompt that was run to the recent prompts.
func (c *Controls) AddToHistory(prompt string) { c.History.Add(prompt) }

// ShowRunPhase makes the main button Generate, Cancel or a disabled "Cancelling…".
func (c *Controls) ShowRunPhase(p jobs.Phase) {
	b := c.Generate
	switch p {
	case jobs.Idle:
		b.SetText("Generate")
		b.SetIcon(theme.NewThemedResource(resources.Sparkles))
		b.Importance = widget.HighImportance
		b.Enable()
	case jobs.Cancelling:
		b.SetText("Cancelling…")
		b.Disable()
	default:
		b.SetText("Cancel")
		b.SetIcon(theme.MediaStopIcon())
		b.Importance = widget.DangerImportance
		b.Enable()
	}
	b.Refresh()
}

// ReadForm validates every field, showing inline messages; ok is false if any is invalid.
func (c *Controls) ReadForm() (jobs.Form, bool) {
	f := jobs.Form{Settings: c.settings(engine.Settings{})}
	f.Prompt = strings.TrimSpace(c.Prompt.Text)
	ok := true
	if f.Prompt == "" {
		shell.SetFieldError(c.PromptErr, "Describe the image first.")
		ok = false
	} else if engine.ValidatePrompt(f.Prompt) != nil {
		shell.SetFieldError(c.PromptErr, fmt.Sprintf("The prompt is too long: %d KB, at most %d KB.", len(f.Prompt)>>10, engine.MaxPromptBytes>>10))
		ok = false
	} else {
		shell.SetFieldError(c.PromptErr, "")
	}
	var sizeOK, stepsOK, seedOK bool
	f.Width, f.Height, sizeOK = c.checkSize()
	f.Steps, stepsOK = c.checkSteps()
	f.Seed, f.SeedGiven, seedOK = c.checkSeed()
	ok = ok && sizeOK && stepsOK && seedOK
	f.Guidance, f.NegativePrompt = 0, ""
	if !c.Model.ModelInfo().Distilled {
		f.Guidance = c.guidance.Value
		f.NegativePrompt = strings.TrimSpace(c.Negative.Text)
		if engine.ValidatePrompt(f.NegativePrompt) != nil {
			shell.SetFieldError(c.negativeErr, fmt.Sprintf("The negative prompt is too long: %d KB, at most %d KB.", len(f.NegativePrompt)>>10, engine.MaxPromptBytes>>10))
			ok = false
		} else {
			shell.SetFieldError(c.negativeErr, "")
		}
	}
	f.Count = c.countValue()
	return f, ok
}

// countValue is the images-per-run setting.
func (c *Controls) countValue() int { return c.count.SelectedIndex() + jobs.MinCount }

// SetCount sets the images-per-run setting, clamped to its range.
func (c *Controls) SetCount(n int) {
	c.count.SetSelectedIndex(min(max(n, jobs.MinCount), jobs.MaxCount) - jobs.MinCount)
}

// ApplySettings fills the controls from remembered settings. Steps and guidance are kept
// only for the model they were used with; another model starts from its own defaults.
func (c *Controls) ApplySettings(s settings.Settings) {
	g := s.Settings
	if g.Width == 0 || g.Height == 0 {
		g.Width, g.Height = 512, 512
	}
	formModel := s.FormModel
	if formModel == "" {
		formModel = s.ModelDir
	}
	if formModel != c.Model.ModelDir() {
		g.Steps, g.Guidance, g.NegativePrompt = 0, 0, c.Negative.Text
	}
	c.apply(g)
	if s.SeedLocked {
		c.Seed.SetText(strconv.FormatUint(s.Seed, 10))
	} else {
		c.Seed.SetText("")
	}
	c.setSeedLocked(s.SeedLocked)
	c.SetCount(s.Count)
}

// setSchedule selects value in the schedule menu, which offers it even when it is none of
// the usual ones ("power:1.5": settings.ScheduleChoices).
func (c *Controls) setSchedule(value string) {
	choices, i := settings.ScheduleChoices(value)
	labels := make([]string, len(choices))
	for j, s := range choices {
		labels[j] = s.Label
	}
	c.schedules = choices
	c.schedule.SetOptions(labels)
	c.schedule.SetSelectedIndex(i)
}

// scheduleValue is the schedule the menu selects.
func (c *Controls) scheduleValue() string {
	return c.schedules[max(0, c.schedule.SelectedIndex())].Value
}

// CurrentSettings captures the controls for remembering, with f's validated values.
func (c *Controls) CurrentSettings(f jobs.Form) settings.Settings {
	s := c.formSettings()
	s.Prompt, s.Width, s.Height, s.Steps, s.Seed = f.Prompt, f.Width, f.Height, f.Steps, f.Seed
	return s
}

// settings is s with the form's generation fields as they stand, valid or not: a field
// that holds no usable value keeps its value in s. The references and the adapters'
// consent are their sections'. apply is the way back.
func (c *Controls) settings(s engine.Settings) engine.Settings {
	if engine.ValidatePrompt(c.Prompt.Text) == nil {
		s.Prompt = c.Prompt.Text
	}
	if neg := strings.TrimSpace(c.Negative.Text); engine.ValidatePrompt(neg) == nil {
		s.NegativePrompt = neg
	}
	if w, msg := parseSide("Width", c.Width.Text); msg == "" {
		s.Width = w
	}
	if h, msg := parseSide("Height", c.Height.Text); msg == "" {
		s.Height = h
	}
	if t := strings.TrimSpace(c.Steps.Text); t == "" {
		s.Steps = 0
	} else if n, err := strconv.Atoi(t); err == nil && n > 0 {
		s.Steps = n
	}
	s.Guidance = c.guidance.Value
	s.Schedule = c.scheduleValue()
	s.Noise = noiseValue(c.noise)
	if n, err := strconv.ParseUint(strings.TrimSpace(c.Seed.Text), 10, 64); err == nil {
		s.Seed = n
	}
	return s
}

// apply fills the form's generation fields from s, the way back from settings: a prompt
// beyond the limit, a zero size, steps or guidance leave their field as it is. The seed
// (locked or reused), the references and the adapters are the caller's.
func (c *Controls) apply(s engine.Settings) {
	if engine.ValidatePrompt(s.Prompt) == nil {
		c.Prompt.SetText(s.Prompt)
	}
	if s.Width > 0 && s.Height > 0 {
		c.SetSize(s.Width, s.Height)
	}
	if s.Steps > 0 {
		c.Steps.SetText(strconv.Itoa(s.Steps))
	}
	if s.Guidance > 0 {
		c.guidance.SetValue(s.Guidance)
	}
	if engine.ValidatePrompt(s.NegativePrompt) == nil {
		c.Negative.SetText(s.NegativePrompt)
	}
	c.setSchedule(s.Schedule)
	setNoise(c.noise, s.Noise)
}

func atoiOr(s string, def int) int {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return def
	}
	return v
}
