package inpaintui

import (
	"fmt"
	"image"
	"path/filepath"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"kleinbild/engine/imageio"
	"kleinbild/engine/inpaint"
)

// amountNames are the outpainting amount fields' labels, in Mode.amounts' order.
var amountNames = [4]string{"Left", "Top", "Right", "Bottom"}

// amountRow is the row of outpainting amounts per side, in pixels, applied with Set (or
// Enter in a field).
func (m *Mode) amountRow() fyne.CanvasObject {
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
func (m *Mode) applyAmounts() {
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
func (m *Mode) showAmounts(p inpaint.Padding) {
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
func (m *Mode) loadResult(path string) {
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
func (m *Mode) showResult(path string, img image.Image) {
	m.path = path
	m.ed.SetPicture(img)
	m.padLabel.SetText(canvasText(m.ed.Width(), m.ed.Height(), inpaint.Padding{}))
	m.showAmounts(inpaint.Padding{})
	if m.win != nil {
		m.win.SetTitle("Inpaint " + filepath.Base(path))
	}
}
