package app

import (
	"fmt"
	"image"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"kleinbild/engine"
	"kleinbild/engine/imageio"
	"kleinbild/engine/inpaint"
)

// amountNames are the outpainting amount fields' labels, in inpaintMode.amounts' order.
var amountNames = [4]string{"Left", "Top", "Right", "Bottom"}

// amountRow is the row of outpainting amounts per side, in pixels, applied with Set (or
// Enter in a field).
func (m *inpaintMode) amountRow() fyne.CanvasObject {
	row := container.NewHBox(widget.NewLabel("Extend by px"))
	for i, e := range m.amounts {
		row.Add(widget.NewLabel(amountNames[i]))
		row.Add(container.NewGridWrap(fyne.NewSize(70, 36), e))
	}
	row.Add(widget.NewButton("Set", m.applyAmounts))
	row.Add(widget.NewLabel("(multiples of 16 keep the canvas whole)"))
	return row
}

// applyAmounts extends the picture by the amount fields (an empty field is 0); a field
// that is not a whole number of pixels, 0 or more, is refused with a message.
func (m *inpaintMode) applyAmounts() {
	var v [4]int
	for i, e := range m.amounts {
		s := strings.TrimSpace(e.Text)
		if s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			m.padLabel.SetText(fmt.Sprintf("%s: a whole number of pixels, 0 or more.", amountNames[i]))
			return
		}
		v[i] = n
	}
	m.extend(inpaint.Padding{Left: v[0], Top: v[1], Right: v[2], Bottom: v[3]})
}

// showAmounts puts the padding p in the amount fields (empty for 0).
func (m *inpaintMode) showAmounts(p inpaint.Padding) {
	for i, n := range [4]int{p.Left, p.Top, p.Right, p.Bottom} {
		s := ""
		if n != 0 {
			s = strconv.Itoa(n)
		}
		if m.amounts[i].Text != s {
			m.amounts[i].SetText(s)
		}
	}
}

// loadResult decodes the result at path off the UI goroutine and shows it (showResult),
// unless the window was closed meanwhile.
func (m *inpaintMode) loadResult(path string) {
	if m.closed {
		return
	}
	m.sh.BG.Add(1)
	go func() {
		defer m.sh.BG.Done()
		img, err := imageio.Load(path)
		m.sh.Post(func() {
			switch {
			case m.closed:
			case err != nil:
				m.sh.ShowError(fmt.Errorf("the inpainting result: %w", err))
			default:
				m.showResult(path, img)
			}
		})
	}()
}

// showResult makes the result img (read from path) the window's picture, to refine
// further: the mask stays (when the size is the same), the extension returns to none.
func (m *inpaintMode) showResult(path string, img image.Image) {
	m.path = path
	m.ed.SetPicture(img)
	m.padLabel.SetText(canvasText(m.ed.Width(), m.ed.Height(), inpaint.Padding{}))
	m.showAmounts(inpaint.Padding{})
	if m.win != nil {
		m.win.SetTitle("Inpaint " + filepath.Base(path))
	}
}

// inpaintResults is Inpaint mode's whenDone: done gets the gallery file of the last image
// j saved, once its run ends with one.
func (u *UI) inpaintResults(j *job, done func(path string)) {
	u.run.whenJobEnds(j, func(out runOutcome) {
		if len(out.entries) > 0 && u.Gallery != nil {
			done(u.Gallery.Path(out.entries[len(out.entries)-1]))
		}
	})
}

// whenJobEnds calls done with the outcome when j's run ends, however it ends (UI
// goroutine). What was registered for jobs that left the queue without running is
// forgotten here and when a run ends.
func (rn *runner) whenJobEnds(j *job, done func(runOutcome)) {
	rn.forgetDroppedJobs()
	if rn.afterJob == nil {
		rn.afterJob = map[*job]func(runOutcome){}
	}
	rn.afterJob[j] = done
}

// jobEnded calls what whenJobEnds registered for j, once.
func (rn *runner) jobEnded(j *job, out runOutcome) {
	done, ok := rn.afterJob[j]
	delete(rn.afterJob, j)
	rn.forgetDroppedJobs()
	if ok {
		done(out)
	}
}

// forgetDroppedJobs drops what whenJobEnds registered for jobs that are neither queued nor
// running: removed, cancelled or opened back into the form, they will never end.
func (rn *runner) forgetDroppedJobs() {
	for j := range rn.afterJob {
		running := rn.cur != nil && rn.cur.job == j
		if !running && !slices.Contains(rn.queue.Jobs, j) {
			delete(rn.afterJob, j)
		}
	}
}

// inpaintNotRestored is what restoring req into the form leaves out when req repainted a
// picture ("" when it did not): the form holds no picture, mask or strength (issue 36
// item 24: restoring an Inpaint result's settings silently brought back only part of
// them). The viewer's Reuse settings restores them in the Inpaint window (reuseInpaint).
func inpaintNotRestored(req engine.Request) string {
	if req.Image == "" {
		return ""
	}
	what := "the inpainting (the repainted picture, its mask and strength"
	if !engine.PaddingOf(req.Outpaint).IsZero() {
		what = "the outpainting (the extended picture, its extension and strength"
	}
	return fmt.Sprintf("not %s %.2f), which the form does not hold: open %s and use Reuse settings in the viewer to repaint it in Inpaint",
		what, req.Strength, filepath.Base(req.Image))
}
