package app

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/jobs"
	"kleinbild/app/recentprompts"
	"kleinbild/app/settings"
	"kleinbild/app/shell"
	"kleinbild/app/widgets"
	"kleinbild/engine"
	"kleinbild/engine/imageio"
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

// controls are the generation settings in the side panel.
type controls struct {
	sh *shell.Shell
	controlsDeps

	prompt    *widgets.ShortcutEntry
	promptErr *widget.Label
	history   *recentprompts.Recent // recent prompts

	preset        *widget.Select
	aspect        *widget.Select // aspect ratios and "use the image's size" (aspect.go)
	width, height *widgets.ShortcutEntry
	sizeErr       *widget.Label
	syncing       bool // set while code updates the size widgets

	steps        *widgets.ShortcutEntry
	stepsErr     *widget.Label
	stepsDefault int

	guidance    *widget.Slider
	guidanceVal *widget.Label
	// negative is the negative prompt, in guidanceBox: CFG's unconditional input.
	negative    *widgets.ShortcutEntry
	negativeErr *widget.Label
	guidanceBox *fyne.Container
	// lastFocus is the focused control the form last scrolled to (focusfollow.go), and
	// focusOffset the form's scroll offset it left.
	lastFocus   fyne.Focusable
	focusOffset float32
	// guidanceDefault is the variant's default, replaced on a model change unless edited.
	guidanceDefault float64

	schedule  *widget.Select
	schedules []settings.ScheduleChoice // the menu's entries (settings.ScheduleChoices)
	noise     *widget.Select            // the kind of initial noise (noisechoice.go)

	seed       *widgets.ShortcutEntry
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

	// count is the number of images per run (minCount..maxCount).
	count *widget.Select

	generate *widget.Button
	// fit says whether the generation fits in memory (see fitLine.update).
	fit *widget.Label

	box    *fyne.Container   // the whole panel
	scroll *container.Scroll // the form's scroll (the references are at its end)

	// formTimer writes the edited form after a pause in typing (see formChanged);
	// formWatched is set once the remembered settings are in the controls.
	formTimer   *time.Timer
	formWatched bool
}

// form is the validated content of the controls (jobs.Form).
type form = jobs.Form

// build creates the side panel: the form, the references and the Generate button, with
// the other components' parts p.
func (c *controls) build(p panelParts) fyne.CanvasObject {
	c.prompt = widgets.NewShortcutEntry(true, c.onGenerate)
	c.prompt.SetPlaceHolder("Describe the image you want…")
	c.prompt.SetMinRowsVisible(5)
	c.promptErr = shell.FieldError()
	c.prompt.OnChanged = func(s string) { // "Describe the image first." goes once it is described
		if strings.TrimSpace(s) != "" && engine.ValidatePrompt(strings.TrimSpace(s)) == nil {
			shell.SetFieldError(c.promptErr, "")
		}
	}
	c.history = recentprompts.New(filepath.Join(c.sh.DataDir, "history.json"), c.sh.Tips, c.sh.Win.Canvas(),
		func(p string) { c.prompt.SetText(p) }, func(err error) { c.sh.Post(func() { c.sh.ShowError(err) }) })

	sizeRow := c.buildSize()

	c.steps = widgets.NewShortcutEntry(false, c.onGenerate)
	c.steps.SetPlaceHolder("auto")
	c.steps.OnChanged = func(string) {
		c.checkSteps()
		c.estimateSoon()
	}
	c.stepsErr = shell.FieldError()

	c.guidance = widget.NewSlider(engine.MinGuidance, engine.MaxGuidance)
	c.guidance.Step = 0.5
	c.guidanceVal = widget.NewLabel("4.0")
	c.guidance.OnChanged = func(v float64) {
		c.guidanceVal.SetText(strconv.FormatFloat(v, 'f', 1, 64))
		c.estimateSoon()
	}
	c.guidance.SetValue(4)
	c.negative = widgets.NewShortcutEntry(false, c.onGenerate)
	c.negative.SetPlaceHolder("What the image should not show (optional)")
	c.negative.OnChanged = func(string) { c.formChanged() }
	c.negativeErr = shell.FieldError()
	c.guidanceBox = container.NewVBox(shell.SectionTitle("Guidance"),
		container.NewBorder(nil, nil, nil, c.guidanceVal, c.guidance),
		shell.Hint("How closely the image follows the prompt (base models only)."),
		shell.SectionTitle("Negative prompt"), c.negative, c.negativeErr)

	c.schedule = widget.NewSelect(nil, nil)
	c.setSchedule("")

	c.seed = widgets.NewShortcutEntry(false, c.onGenerate)
	c.seed.SetPlaceHolder(randomPlaceholder(0, false))
	c.seed.OnChanged = func(string) { c.seedEdited() }
	c.seedErr = shell.FieldError()
	c.dice = widgets.NewTipButton(c.sh.Tips, theme.NewThemedResource(resources.Dice), "Pick a random seed", func() {
		c.seed.SetText(strconv.FormatUint(randomSeed(), 10))
	})
	c.dice.Importance = widget.MediumImportance
	c.lock = widgets.NewTipButton(c.sh.Tips, theme.NewThemedResource(resources.LockOpen), lockTip(false), c.toggleSeedLocked)
	c.lock.Importance = widget.MediumImportance
	seedRow := container.NewBorder(nil, nil, nil, container.NewHBox(c.dice, c.lock), c.seed)
	c.noise = newNoiseSelect(c.formChanged)

	var counts []string
	for n := minCount; n <= maxCount; n++ {
		counts = append(counts, strconv.Itoa(n))
	}
	c.count = widget.NewSelect(counts, func(string) {
		c.formChanged()
		c.estimateSoon() // the time shown covers every image
	})
	c.count.SetSelectedIndex(0)
	countHint := widget.NewLabel("seeds count up by one")
	countHint.SizeName = theme.SizeNameCaptionText
	countHint.Importance = widget.LowImportance
	countRow := container.NewBorder(nil, nil, nil, countHint, c.count)

	c.generate = widget.NewButtonWithIcon("Generate", theme.NewThemedResource(resources.Sparkles), c.generateOrCancel)
	c.generate.Importance = widget.HighImportance
	c.fit = widget.NewLabel("")
	c.fit.Wrapping = fyne.TextWrapWord
	c.fit.SizeName = theme.SizeNameCaptionText
	c.fit.Hide()

	form := container.NewVBox(
		container.NewBorder(nil, nil, nil, c.history.Button, shell.SectionTitle("Prompt")), c.prompt, c.promptErr,
		shell.Hint("Ctrl+Enter (⌘+Enter on macOS) generates."),
		shell.Spacer(4),
		shell.SectionTitle("Size"), c.preset, c.buildAspect(), sizeRow, c.sizeErr,
		shell.Spacer(4),
		container.New(layout.NewGridLayoutWithColumns(2),
			container.NewVBox(shell.SectionTitle("Steps"), c.steps),
			container.NewVBox(shell.SectionTitle("Schedule"), c.schedule)),
		c.stepsErr,
		c.guidanceBox,
		shell.Spacer(4),
		shell.SectionTitle("Seed"), seedRow, c.seedErr, noiseRow(c.noise),
		shell.Spacer(4),
		shell.SectionTitle("Images per run"), countRow,
		shell.Spacer(4),
		p.refs(),
		shell.Spacer(4),
		p.adapters(),
	)
	// Generate, its fit line and (while running) Cancel stay in view under the form, which
	// scrolls on its own in a short window.
	c.scroll = container.NewVScroll(container.NewPadded(form))
	for _, e := range []*widgets.ShortcutEntry{c.prompt, c.width, c.height, c.steps, c.negative, c.seed} {
		e.PassScrollTo(c.scroll) // the wheel over a field scrolls the form
		e.OnFocus = func() { c.scrollToShow(e) }
	}
	p.scrolled(c.scroll)
	c.keptSeed = widgets.NewTipButton(c.sh.Tips, theme.NewThemedResource(resources.Lock), lockTip(true), func() { c.setSeedLocked(false) })
	c.keptSeed.Importance = widget.HighImportance
	c.keptSeed.Hide()
	c.box = container.NewBorder(nil, container.NewPadded(container.NewVBox(
		container.NewBorder(nil, nil, c.keptSeed, p.queueAdd, c.generate), p.queue, p.wrapFit(c.fit))), nil, nil,
		c.scroll)
	return c.box
}

// buildSize makes the size preset, the width and height fields and the swap button, and
// returns the row of the fields.
func (c *controls) buildSize() fyne.CanvasObject {
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
				c.setSize(p.w, p.h)
			}
		}
	})
	c.width = widgets.NewShortcutEntry(false, c.onGenerate)
	c.height = widgets.NewShortcutEntry(false, c.onGenerate)
	c.sizeErr = shell.FieldError()
	for _, e := range []*widgets.ShortcutEntry{c.width, c.height} {
		e.OnChanged = func(string) {
			if !c.syncing {
				c.checkSize()
			}
		}
	}
	swap := widgets.NewTipButton(c.sh.Tips, theme.NewThemedResource(resources.Swap), "Swap width and height", func() {
		c.setSize(atoiOr(c.height.Text, 0), atoiOr(c.width.Text, 0))
	})
	times := widget.NewLabel("×")
	return container.NewBorder(nil, nil, nil, swap,
		container.New(layout.NewGridLayoutWithColumns(2),
			container.NewBorder(nil, nil, nil, times, c.width), c.height))
}

// generateOrCancel is the main button's action.
func (c *controls) generateOrCancel() {
	if c.busy() {
		c.onCancel()
		return
	}
	c.onGenerate()
}

// setSize puts w×h in the size fields and selects the matching preset.
func (c *controls) setSize(w, h int) {
	c.syncing = true
	c.width.SetText(strconv.Itoa(w))
	c.height.SetText(strconv.Itoa(h))
	c.syncing = false
	c.checkSize()
}

// checkSize validates the size fields, shows or clears the inline message and keeps the
// preset menu in step. It returns the valid size.
func (c *controls) checkSize() (w, h int, ok bool) {
	w, wmsg := parseSide("Width", c.width.Text)
	h, hmsg := parseSide("Height", c.height.Text)
	msg := strings.TrimSpace(wmsg + " " + hmsg)
	shell.SetFieldError(c.sizeErr, msg)
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
	c.estimateSoon()
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
func (c *controls) checkSteps() (int, bool) {
	text := strings.TrimSpace(c.steps.Text)
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

// applyVariant adapts the form to the model info (usable: chosen and without error):
// guidance shows for base models only, and steps and guidance take the variant's defaults
// unless the user changed them.
func (c *controls) applyVariant(info engine.ModelInfo, usable bool) {
	if usable && !info.Distilled {
		c.guidanceBox.Show()
	} else {
		c.guidanceBox.Hide()
	}
	if def := info.DefaultSteps; def > 0 {
		cur := strings.TrimSpace(c.steps.Text)
		if cur == "" || cur == fmt.Sprint(c.stepsDefault) {
			c.steps.SetText(fmt.Sprint(def))
		}
		c.stepsDefault = def
		c.steps.SetPlaceHolder(fmt.Sprint(def))
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
func (c *controls) scrollToShow(o fyne.CanvasObject) {
	s := c.scroll
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

// scrollToEnd scrolls the form to its end, where the references are.
func (c *controls) scrollToEnd() {
	if c.scroll != nil {
		c.scroll.ScrollToBottom()
	}
}

// AddToHistory adds a prompt that was run to the recent prompts.
func (c *controls) AddToHistory(prompt string) { c.history.Add(prompt) }

// showRunPhase makes the main button Generate, Cancel or a disabled "Cancelling…".
func (c *controls) showRunPhase(p jobs.Phase) {
	b := c.generate
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
func (c *controls) ReadForm() (form, bool) {
	f := form{Settings: c.settings(engine.Settings{})}
	f.Prompt = strings.TrimSpace(c.prompt.Text)
	ok := true
	if f.Prompt == "" {
		shell.SetFieldError(c.promptErr, "Describe the image first.")
		ok = false
	} else if engine.ValidatePrompt(f.Prompt) != nil {
		shell.SetFieldError(c.promptErr, fmt.Sprintf("The prompt is too long: %d KB, at most %d KB.", len(f.Prompt)>>10, engine.MaxPromptBytes>>10))
		ok = false
	} else {
		shell.SetFieldError(c.promptErr, "")
	}
	var sizeOK, stepsOK, seedOK bool
	f.Width, f.Height, sizeOK = c.checkSize()
	f.Steps, stepsOK = c.checkSteps()
	f.Seed, f.SeedGiven, seedOK = c.checkSeed()
	ok = ok && sizeOK && stepsOK && seedOK
	f.Guidance, f.NegativePrompt = 0, ""
	if !c.model.ModelInfo().Distilled {
		f.Guidance = c.guidance.Value
		f.NegativePrompt = strings.TrimSpace(c.negative.Text)
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

// count is the images-per-run setting.
func (c *controls) countValue() int { return c.count.SelectedIndex() + minCount }

// setCount sets the images-per-run setting, clamped to its range.
func (c *controls) setCount(n int) {
	c.count.SetSelectedIndex(min(max(n, minCount), maxCount) - minCount)
}

// applySettings fills the controls from remembered settings. Steps and guidance are kept
// only for the model they were used with; another model starts from its own defaults.
func (c *controls) applySettings(s settings.Settings) {
	g := s.Settings
	if g.Width == 0 || g.Height == 0 {
		g.Width, g.Height = 512, 512
	}
	formModel := s.FormModel
	if formModel == "" {
		formModel = s.ModelDir
	}
	if formModel != c.model.ModelDir() {
		g.Steps, g.Guidance, g.NegativePrompt = 0, 0, c.negative.Text
	}
	c.apply(g)
	if s.SeedLocked {
		c.seed.SetText(strconv.FormatUint(s.Seed, 10))
	} else {
		c.seed.SetText("")
	}
	c.setSeedLocked(s.SeedLocked)
	c.setCount(s.Count)
}

// setSchedule selects value in the schedule menu, which offers it even when it is none of
// the usual ones ("power:1.5": settings.ScheduleChoices).
func (c *controls) setSchedule(value string) {
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
func (c *controls) scheduleValue() string {
	return c.schedules[max(0, c.schedule.SelectedIndex())].Value
}

// CurrentSettings captures the controls for remembering, with f's validated values.
func (c *controls) CurrentSettings(f form) settings.Settings {
	s := c.formSettings()
	s.Prompt, s.Width, s.Height, s.Steps, s.Seed = f.Prompt, f.Width, f.Height, f.Steps, f.Seed
	return s
}

// settings is s with the form's generation fields as they stand, valid or not: a field
// that holds no usable value keeps its value in s. The references and the adapters'
// consent are their sections'. apply is the way back.
func (c *controls) settings(s engine.Settings) engine.Settings {
	if engine.ValidatePrompt(c.prompt.Text) == nil {
		s.Prompt = c.prompt.Text
	}
	if neg := strings.TrimSpace(c.negative.Text); engine.ValidatePrompt(neg) == nil {
		s.NegativePrompt = neg
	}
	if w, msg := parseSide("Width", c.width.Text); msg == "" {
		s.Width = w
	}
	if h, msg := parseSide("Height", c.height.Text); msg == "" {
		s.Height = h
	}
	if t := strings.TrimSpace(c.steps.Text); t == "" {
		s.Steps = 0
	} else if n, err := strconv.Atoi(t); err == nil && n > 0 {
		s.Steps = n
	}
	s.Guidance = c.guidance.Value
	s.Schedule = c.scheduleValue()
	s.Noise = noiseValue(c.noise)
	if n, err := strconv.ParseUint(strings.TrimSpace(c.seed.Text), 10, 64); err == nil {
		s.Seed = n
	}
	return s
}

// apply fills the form's generation fields from s, the way back from settings: a prompt
// beyond the limit, a zero size, steps or guidance leave their field as it is. The seed
// (locked or reused), the references and the adapters are the caller's.
func (c *controls) apply(s engine.Settings) {
	if engine.ValidatePrompt(s.Prompt) == nil {
		c.prompt.SetText(s.Prompt)
	}
	if s.Width > 0 && s.Height > 0 {
		c.setSize(s.Width, s.Height)
	}
	if s.Steps > 0 {
		c.steps.SetText(strconv.Itoa(s.Steps))
	}
	if s.Guidance > 0 {
		c.guidance.SetValue(s.Guidance)
	}
	if engine.ValidatePrompt(s.NegativePrompt) == nil {
		c.negative.SetText(s.NegativePrompt)
	}
	c.setSchedule(s.Schedule)
	setNoise(c.noise, s.Noise)
}

// RestoreSettings fills the controls from an image's metadata: prompt, size, steps,
// guidance, schedule, noise, the seed (locked, so the next run reproduces the image) and the
// reference images that still exist.
func (u *UI) RestoreSettings(m imageio.Metadata) { u.ctl.restoreSettings(m) }

// restoreSettings is RestoreSettings.
func (c *controls) restoreSettings(m imageio.Metadata) {
	c.restoreRequest(engine.MetadataRequest(m), func() { c.restoreAdapters(m.Adapters) })
}

// restoreRequest fills the controls from req as restoreSettings does (an image's settings,
// or a queued job opened back into the form); adapters brings back its adapters.
func (c *controls) restoreRequest(req engine.Request, adapters func()) {
	// A prompt beyond the limit (the metadata reader takes up to 16 MB) stays out of the
	// field: no generation could use it, and a field that large is slow to lay out.
	promptErr := engine.ValidatePrompt(req.Prompt)
	c.apply(req.Settings)
	c.reuseSeed(req.Seed)
	adapters()
	var notes []string
	if promptErr != nil {
		notes = append(notes, fmt.Sprintf("not the prompt: it is %d KB long, at most %d KB are allowed", len(req.Prompt)>>10, engine.MaxPromptBytes>>10))
	}
	if note := inpaintNotRestored(req); note != "" {
		notes = append(notes, note)
	}
	want := req.References
	have := c.refs.RefPaths()
	if len(have) == 0 || slices.Equal(have, want) {
		c.restoreRefs(want, true, notes)
		return
	}
	// The user's own references are not replaced without asking.
	msg := fmt.Sprintf("The image was made with %d reference image(s). Replace your %d reference image(s) with them?", len(want), len(have))
	if len(want) == 0 {
		msg = fmt.Sprintf("The image was made without reference images. Remove your %d reference image(s)?", len(have))
	}
	d := dialog.NewConfirm("Replace the references?", msg, func(replace bool) {
		if replace {
			c.restoreRefs(want, true, notes)
		} else {
			c.restoreRefs(nil, false, append(notes, "not the reference images (yours are kept)"))
		}
	}, c.sh.Win)
	d.SetConfirmText("Replace")
	d.SetDismissText("Keep mine")
	d.Show()
}

// restoreRefs ends a restore: with replace the references become paths (those that still
// exist); notes are what was not restored, for the message.
func (c *controls) restoreRefs(paths []string, replace bool, notes []string) {
	if replace {
		if missing := c.refs.ReplaceRefs(paths); len(missing) > 0 {
			notes = append(notes, fmt.Sprintf("%d reference image(s) that no longer exist: %s", len(missing), strings.Join(missing, ", ")))
		}
	}
	if len(notes) > 0 {
		c.sh.ShowNotice("Settings restored, but " + strings.Join(notes, "; ") + ".")
	} else {
		c.sh.SetStatus("Settings restored.")
	}
}

func atoiOr(s string, def int) int {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return def
	}
	return v
}
