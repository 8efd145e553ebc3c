// Package inpaintui is Inpaint mode: a window of its own on one picture, where a mask or an
// extension of the canvas says what to repaint.
package inpaintui

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/jobs"
	"kleinbild/app/maskedit"
	"kleinbild/app/shell"
	"kleinbild/app/widgets"
	"kleinbild/engine"
	"kleinbild/engine/imageio"
	"kleinbild/engine/inpaint"
	"kleinbild/engine/lora"
)

// Mode is Inpaint mode for one picture, in a window of its own: the mask editor
// with its brush (size, hardness, eraser) and rectangle tool, Clear, Invert, Undo and
// Redo, the strength, the Extend buttons and amounts per side (outpainting), its own
// prompt, and Generate, which repaints the masked region (or the new canvas area), and
// "Repaint all", which starts from the whole picture at the strength (image to image).
// The result replaces the picture, to refine further.
type Mode struct {
	sh *shell.Shell
	Deps
	path string // the picture's file
	ed   *maskedit.Editor
	// strength is the inpainting strength, 0.05..1.
	strength       *widgets.EscapeSlider
	size, hardness *widgets.EscapeSlider
	eraser         *widgets.EscapeCheck
	padLabel       *widget.Label
	strengthLabel  *widget.Label
	genBtn         *widget.Button
	// prompt is the window's own prompt, used for its runs instead of the form's.
	prompt *widgets.EscapeEntry
	// amounts are the outpainting amounts in pixels: left, top, right, bottom.
	amounts [4]*widgets.EscapeEntry
	// rect switches the editor to the rectangle tool.
	rect   *widgets.EscapeCheck
	win    fyne.Window
	closed bool // the window was closed: results no longer go to it
	// run shows the window's job while it runs or waits (inpaintrun.go).
	run inpaintRun
}

// Deps is what Inpaint mode uses of the other components.
type Deps struct {
	// ReadForm reads the main form (ok false when it does not hold a usable job: it says
	// why); SeedIsLocked reports whether its seed field is locked.
	ReadForm     func() (f Form, ok bool)
	SeedIsLocked func() bool
	// Adapters is the form's stack of switched-on adapters; AdaptersPartial reports whether
	// the user accepted adapters that match the model in part.
	Adapters        func() lora.Stack
	AdaptersPartial func() bool
	// Submit starts the job, or queues it while another runs.
	Submit func(j *jobs.Job)
	// FormPrompt is the main form's prompt, the window's prompt to begin with (may be nil);
	// FillFormPrompt gives an empty one the window's, which the form's checks require.
	FormPrompt     func() string
	FillFormPrompt func(prompt string)
	// WhenDone, when set, calls done with the gallery file of the last image j saved,
	// once j's run ends with one (UI goroutine).
	WhenDone func(j *jobs.Job, done func(path string))
	// JobState tells how a job stands; CancelJob cancels it (nil: the window shows no
	// progress).
	JobState  func(j *jobs.Job) JobState
	CancelJob func(j *jobs.Job)
}

// Form is what Inpaint mode takes from the main form: its settings, and whether its seed
// was typed in.
type Form struct {
	engine.Settings
	SeedGiven bool
}

// New makes Inpaint mode for the picture img read from path.
func New(sh *shell.Shell, deps Deps, path string, img image.Image) *Mode {
	m := &Mode{sh: sh, Deps: deps, path: path, ed: maskedit.New(img)}
	m.size = widgets.NewEscapeSlider(2, 256)
	m.size.SetValue(m.ed.Brush)
	m.size.OnChanged = func(v float64) { m.ed.Brush = v }
	m.hardness = widgets.NewEscapeSlider(0, 1)
	m.hardness.Step = 0.05
	m.hardness.SetValue(m.ed.Hardness)
	m.hardness.OnChanged = func(v float64) { m.ed.Hardness = v }
	m.eraser = widgets.NewEscapeCheck("Eraser", func(on bool) { m.ed.Erase = on })
	m.strength = widgets.NewEscapeSlider(0.05, 1)
	m.strength.Step = 0.05
	m.strengthLabel = widget.NewLabel("")
	m.strength.OnChanged = func(v float64) { m.strengthLabel.SetText(fmt.Sprintf("%.2f", v)) }
	m.strength.SetValue(engine.DefaultStrength)
	m.padLabel = widget.NewLabel(canvasText(m.ed.Width(), m.ed.Height(), inpaint.Padding{}))
	m.prompt = widgets.NewEscapeMultiLineEntry()
	m.prompt.Wrapping = fyne.TextWrapWord
	m.prompt.SetMinRowsVisible(2)
	m.prompt.SetPlaceHolder("What to paint in the masked part")
	if deps.FormPrompt != nil {
		m.prompt.SetText(deps.FormPrompt())
	}
	for i := range m.amounts {
		m.amounts[i] = widgets.NewEscapeEntry()
		m.amounts[i].SetPlaceHolder("0")
		m.amounts[i].OnSubmitted = func(string) { m.applyAmounts() }
	}
	m.rect = widgets.NewEscapeCheck("Rectangle", func(on bool) { m.ed.Rect = on })
	return m
}

// content is the mode's window content.
func (m *Mode) content() fyne.CanvasObject {
	tools := container.NewHBox(
		widget.NewLabel("Brush"), container.NewGridWrap(fyne.NewSize(120, 36), m.size),
		widget.NewLabel("Hardness"), container.NewGridWrap(fyne.NewSize(90, 36), m.hardness),
		m.rect, m.eraser,
		widget.NewButtonWithIcon("Undo", theme.ContentUndoIcon(), m.ed.Undo),
		widget.NewButtonWithIcon("Redo", theme.ContentRedoIcon(), m.ed.Redo),
		widget.NewButtonWithIcon("Clear", theme.ContentClearIcon(), m.ed.Clear),
		widget.NewButton("Invert", m.ed.Invert),
		widgets.NewEscapeCheck("Pan", func(on bool) { m.ed.Pan = on }),
		widget.NewButtonWithIcon("Fit", theme.ZoomFitIcon(), func() { m.ed.SetZoom(1, 0, 0) }),
	)
	side := func(label string, p func(d int) inpaint.Padding, horizontal bool) *widget.Button {
		return widget.NewButton(label, func() {
			n := m.ed.Height()
			if horizontal {
				n = m.ed.Width()
			}
			m.extend(p((n/4 + 15) / 16 * 16)) // a quarter of the side, in whole tokens
		})
	}
	extend := container.NewHBox(widget.NewLabel("Extend"),
		side("Left", func(d int) inpaint.Padding { return inpaint.Padding{Left: d} }, true),
		side("Right", func(d int) inpaint.Padding { return inpaint.Padding{Right: d} }, true),
		side("Top", func(d int) inpaint.Padding { return inpaint.Padding{Top: d} }, false),
		side("Bottom", func(d int) inpaint.Padding { return inpaint.Padding{Bottom: d} }, false),
		widget.NewButton("16:9", func() { m.extendAspect(16, 9) }),
		widget.NewButton("4:3", func() { m.extendAspect(4, 3) }),
		widget.NewButton("1:1", func() { m.extendAspect(1, 1) }),
		widget.NewButton("No extension", func() { m.extend(inpaint.Padding{}) }),
		m.padLabel,
	)
	m.genBtn = widget.NewButtonWithIcon("Generate", theme.MediaPlayIcon(), func() { m.generate(false) })
	m.genBtn.Importance = widget.HighImportance
	whole := widget.NewButton("Repaint all", func() { m.generate(true) })
	strength := container.NewBorder(nil, nil, container.NewHBox(widget.NewLabel("Strength"), m.strengthLabel),
		container.NewHBox(whole, m.genBtn), m.strength)
	bottom := container.NewVBox(m.buildRun(m.genBtn, whole), container.NewBorder(nil, nil, widget.NewLabel("Prompt"), nil, m.prompt), strength)
	return container.NewBorder(container.NewVBox(tools, extend, m.amountRow()), bottom, nil, nil, m.ed)
}

// extend sets the outpainting padding, refused (with a message) past the size limit.
func (m *Mode) extend(p inpaint.Padding) {
	if err := engine.CheckOutpaint(p, m.ed.Width(), m.ed.Height()); err != nil {
		m.padLabel.SetText(err.Error())
		return
	}
	m.ed.SetPadding(p)
	m.padLabel.SetText(canvasText(m.ed.Width(), m.ed.Height(), p))
	m.showAmounts(p)
}

// canvasText is the Extend row's line for a w×h picture extended by p: the new canvas, and
// how the result's size differs from the picture or canvas (inpaint.SizeNote), if it does.
func canvasText(w, h int, p inpaint.Padding) string {
	if p.IsZero() {
		if note := inpaint.SizeNote(w, h, false, false); note != "" {
			return "Note: " + note
		}
		return ""
	}
	cw, ch := p.Size(w, h)
	s := fmt.Sprintf("New canvas %d×%d", cw, ch)
	if note := inpaint.SizeNote(cw, ch, true, false); note != "" {
		s += ". Note: " + note
	}
	return s
}

// extendAspect extends the picture to the aspect ratio aw:ah.
func (m *Mode) extendAspect(aw, ah int) {
	p, err := inpaint.PadToAspect(m.ed.Width(), m.ed.Height(), aw, ah)
	if err != nil {
		m.padLabel.SetText(err.Error())
		return
	}
	m.extend(p)
}

// request is the inpainting (or outpainting) request for the picture: the mask is saved
// as an 8-bit grey PNG named by its hash under dir (the data folder's masks), so that the
// image's metadata and lineage can point to it.
// With whole, the request repaints all of the picture from the strength (image to image:
// no mask, no extension).
func (m *Mode) request(prompt string, seed uint64, dir string, whole bool) (engine.Request, error) {
	// The slider's steps are 0.05; rounding drops their float residue (0.6000000000000001).
	strength := math.Round(m.strength.Value*100) / 100
	req := engine.Request{Settings: engine.Settings{Prompt: prompt, Seed: seed, Image: m.path, Strength: strength}}
	if whole {
		return req, nil
	}
	if !m.ed.Padding().IsZero() {
		req.Outpaint = engine.OutpaintOf(m.ed.Padding())
		return req, nil
	}
	if !m.ed.Masked() {
		return engine.Request{}, errors.New("paint the part of the picture to repaint first (or extend it)")
	}
	sum := sha256.Sum256(m.ed.Mask().Pix)
	name := fmt.Sprintf("%s-%dx%d.png", hex.EncodeToString(sum[:8]), m.ed.Width(), m.ed.Height())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return engine.Request{}, fmt.Errorf("mask folder: %w", err)
	}
	req.Mask = filepath.Join(dir, name)
	if err := imageio.WritePNG(req.Mask, m.ed.Mask(), imageio.Metadata{}); err != nil {
		return engine.Request{}, fmt.Errorf("save the mask: %w", err)
	}
	return req, nil
}

// generate starts (or queues) the inpainting job (with whole, the image-to-image job) with
// the window's prompt and the form's seed, steps, guidance, schedule, negative prompt and
// switched-on adapters. When the job ends with an image, the window shows it (showResult).
func (m *Mode) generate(whole bool) {
	if err := m.sh.Writable(); err != nil {
		m.sh.ShowError(err) // the mask would be written to the data folder
		return
	}
	prompt := strings.TrimSpace(m.prompt.Text)
	if prompt == "" {
		m.sh.ShowError(errors.New("describe what to paint in the Inpaint window's prompt first"))
		return
	}
	if err := engine.ValidatePrompt(prompt); err != nil {
		m.sh.ShowError(fmt.Errorf("the Inpaint prompt: %w", err))
		return
	}
	if m.FormPrompt != nil && m.FillFormPrompt != nil && m.FormPrompt() == "" {
		m.FillFormPrompt(prompt)
	}
	f, ok := m.ReadForm()
	if !ok {
		return
	}
	if !m.SeedIsLocked() || !f.SeedGiven {
		f.Seed = engine.RandomSeed()
	}
	req, err := m.request(prompt, f.Seed, filepath.Join(m.sh.DataDir, "masks"), whole)
	if err != nil {
		m.sh.ShowError(err)
		return
	}
	req.Steps, req.Guidance, req.Schedule, req.NegativePrompt = f.Steps, f.Guidance, f.Schedule, f.NegativePrompt
	req.Adapters, req.AdaptersPartial = m.Adapters(), m.AdaptersPartial()
	j := jobs.New(req, 1)
	j.Picture = image.Pt(m.ed.Width(), m.ed.Height()) // priced at the result's size, with its steps
	if m.WhenDone != nil {
		m.WhenDone(j, m.loadResult)
	}
	m.Submit(j)
	m.follow(j)
}

// Open opens Inpaint mode for the picture img read from path, in a window of its own.
func Open(sh *shell.Shell, deps Deps, path string, img image.Image) *Mode {
	m := New(sh, deps, path, img)
	m.win = sh.App.NewWindow("Inpaint " + filepath.Base(path))
	m.win.SetOnClosed(func() { m.closed = true })
	m.win.SetContent(m.content())
	sh.OpenLarge(m.win, fyne.NewSize(900, 700))
	shell.CloseOnEscape(m.win)
	m.win.Show()
	return m
}

// Restore puts back what an inpainted or outpainted image was made with: the mask (nil
// for none, else one byte per picture pixel), the extension and the strength (used when
// in 0..1, above 0).
func (m *Mode) Restore(mask []uint8, pad inpaint.Padding, strength float64) {
	if mask != nil {
		copy(m.ed.Mask().Pix, mask)
	}
	if !pad.IsZero() {
		m.extend(pad)
	}
	if strength > 0 && strength <= 1 {
		m.strength.SetValue(strength)
	}
	m.ed.Render()
}

// Parts are the window's widgets and picture, for the main window's tests.
type Parts struct {
	Win               fyne.Window
	Prompt            *widgets.EscapeEntry
	Amounts           [4]*widgets.EscapeEntry
	Size, Strength    *widgets.EscapeSlider
	Eraser            *widgets.EscapeCheck
	Editor            *maskedit.Editor
	Generate, Repaint *widget.Button
	// Progress is the row of the window's job: its bar, ProgressText and Cancel.
	Progress     *fyne.Container
	ProgressText *widget.Label
	Cancel       *widget.Button
	Path         string
}

// Parts is the window's widgets and the picture's file now (tests).
func (m *Mode) Parts() Parts {
	p := Parts{Win: m.win, Prompt: m.prompt, Amounts: m.amounts, Size: m.size, Strength: m.strength,
		Eraser: m.eraser, Editor: m.ed, Generate: m.genBtn, Progress: m.run.row, ProgressText: m.run.text, Cancel: m.run.cancel, Path: m.path}
	if len(m.run.starters) > 1 {
		p.Repaint = m.run.starters[1]
	}
	return p
}
