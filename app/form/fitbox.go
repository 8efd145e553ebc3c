package form

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// steadyHeight lays out one object at a height that never shrinks while its width stays the
// same: the fit line wraps to fewer lines once the model is loaded ("model load included"
// goes), and that must not move the Generate button or the queue when a job starts.
type steadyHeight struct {
	width, height float32
}

// MinSize is the object's, at least as tall as it has been at this width.
func (l *steadyHeight) MinSize(objs []fyne.CanvasObject) fyne.Size {
	if len(objs) == 0 {
		return fyne.Size{}
	}
	m := objs[0].MinSize()
	l.height = max(l.height, m.Height)
	return fyne.NewSize(m.Width, l.height)
}

// Layout gives the object the whole space; a new width starts the height afresh.
func (l *steadyHeight) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	if size.Width != l.width {
		l.width, l.height = size.Width, 0
	}
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

// Wrap puts the fit line, which the controls made, into the box that keeps its height
// steady (Controls.Build places the box); the line's visibility is the box's (setShown).
func (f *FitLine) Wrap(line *widget.Label) fyne.CanvasObject {
	f.line = line
	f.steady = &steadyHeight{}
	f.box = container.New(f.steady, line)
	if !line.Visible() {
		f.box.Hide()
	}
	return f.box
}

// setText sets the fit line's text. The box keeps its height when only the load note
// comes or goes (a run loaded the model); any other change (the settings, the verdict) lets
// it fit the new text.
func (f *FitLine) setText(text string) {
	l := f.line
	if f.steady != nil && strings.TrimSuffix(text, loadNote) != strings.TrimSuffix(l.Text, loadNote) {
		f.steady.height = 0
	}
	l.SetText(text)
}

// setShown shows or hides the fit line and its box.
func (f *FitLine) setShown(show bool) {
	l := f.line
	if show {
		l.Show()
		if f.box != nil {
			f.box.Show()
		}
		return
	}
	l.Hide()
	if f.box != nil {
		f.box.Hide()
	}
}
