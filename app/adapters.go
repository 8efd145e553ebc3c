package app

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/engine/lora"
)

// adaptersSection is the form's "Adapters" section: LoRA/LoKr files, each with an on/off
// switch, a strength slider (−2..2 in steps of 0.05; lora.MaxStrength is the engine's
// bound) and a remove button. Generations apply the switched-on ones (stack).
type adaptersSection struct {
	u       *UI
	entries []*adapterEntry
	list    *fyne.Container
	hint    *widget.RichText
	err     *widget.Label
}

// adapterEntry is one adapter of the list.
type adapterEntry struct {
	a        *lora.Adapter
	on       *widget.Check
	strength *widget.Slider
	value    *widget.Label
}

func (s *adaptersSection) build() fyne.CanvasObject {
	add := widget.NewButtonWithIcon("Add…", theme.ContentAddIcon(), s.showAdd)
	add.Importance = widget.LowImportance
	s.list = container.NewVBox()
	s.hint = hint("LoRA or LoKr files (.safetensors) change the model's style or subject; each has a strength, negative to push away.")
	s.err = fieldError()
	return container.NewVBox(
		container.NewBorder(nil, nil, nil, add, sectionTitle("Adapters")),
		s.list, s.err, s.hint)
}

// showAdd asks for an adapter file's path.
func (s *adaptersSection) showAdd() {
	path := widget.NewEntry()
	path.SetPlaceHolder("/path/to/adapter.safetensors")
	dialog.ShowForm("Add adapter", "Add", "Cancel", []*widget.FormItem{widget.NewFormItem("File", path)}, func(ok bool) {
		if ok {
			s.addFile(strings.TrimSpace(path.Text))
		}
	}, s.u.win)
}

// addFile reads the adapter at path and adds it at strength 1; a problem is shown under the
// list. Its fit to the model is checked when a generation starts (engine.Model.SetAdapters).
func (s *adaptersSection) addFile(path string) {
	a, err := lora.Open(path)
	if err != nil {
		s.err.SetText(err.Error())
		s.err.Show()
		return
	}
	s.err.Hide()
	s.add(a, 1)
}

// add appends a to the list.
func (s *adaptersSection) add(a *lora.Adapter, strength float64) {
	e := &adapterEntry{a: a, value: widget.NewLabel("")}
	e.on = widget.NewCheck(filepath.Base(a.Path), func(bool) { s.u.fit.updateSoon() })
	e.on.SetChecked(true)
	e.strength = widget.NewSlider(-2, 2)
	e.strength.Step = 0.05
	e.strength.OnChanged = func(v float64) { e.value.SetText(strconv.FormatFloat(v, 'f', 2, 64)) }
	e.strength.SetValue(strength)
	var row *fyne.Container
	rm := widget.NewButtonWithIcon("", theme.CancelIcon(), func() { s.remove(e, row) })
	rm.Importance = widget.LowImportance
	sum := a.Summary()
	info := fmt.Sprintf("%v %v", sum.Format, sum.Kinds)
	if sum.Fits != "" {
		info += ", for " + sum.Fits
	}
	row = container.NewVBox(container.NewBorder(nil, nil, nil, rm, e.on),
		container.NewBorder(nil, nil, nil, e.value, e.strength), hint(info))
	s.entries = append(s.entries, e)
	s.list.Add(row)
	s.hint.Hide()
	s.u.fit.updateSoon()
}

func (s *adaptersSection) remove(e *adapterEntry, row fyne.CanvasObject) {
	for i, x := range s.entries {
		if x == e {
			s.entries = append(s.entries[:i], s.entries[i+1:]...)
			break
		}
	}
	s.list.Remove(row)
	if len(s.entries) == 0 {
		s.hint.Show()
	}
	s.u.fit.updateSoon()
}

// stack is the switched-on adapters with their strengths, for a request.
func (s *adaptersSection) stack() lora.Stack {
	var st lora.Stack
	for _, e := range s.entries {
		if e.on.Checked {
			st = append(st, lora.Weighted{Adapter: e.a, Strength: float32(e.strength.Value)})
		}
	}
	return st
}
