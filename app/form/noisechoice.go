package form

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/shell"
	"kleinbild/engine"
)

// noiseChoices are the noise menu's labels and their Request.Noise values, the default first.
var noiseChoices = []struct{ label, value string }{
	{"Torch-compatible (default)", engine.NoiseTorch},
	{"Size-stable", engine.NoiseStable},
}

// newNoiseSelect makes the noise menu (torch-compatible selected); changed runs after a
// pick by the user or by code.
func newNoiseSelect(changed func()) *widget.Select {
	var labels []string
	for _, n := range noiseChoices {
		labels = append(labels, n.label)
	}
	s := widget.NewSelect(labels, nil)
	s.SetSelectedIndex(0)
	s.OnChanged = func(string) { changed() }
	return s
}

// noiseRow lays out the noise menu with its label and a line saying which is which.
func noiseRow(s *widget.Select) fyne.CanvasObject {
	return container.NewVBox(
		container.NewBorder(nil, nil, widget.NewLabel("Noise"), nil, s),
		shell.Hint("Size-stable: one seed keeps its composition at every size. Torch-compatible matches diffusers exactly, but changes with the size."))
}

// noiseValue is the Request.Noise of the menu's choice.
func noiseValue(s *widget.Select) string {
	return noiseChoices[max(0, s.SelectedIndex())].value
}

// setNoise selects value's entry; an unknown or empty value selects torch-compatible, the
// noise of images made before the choice existed.
func setNoise(s *widget.Select, value string) {
	for i, n := range noiseChoices {
		if n.value == value {
			s.SetSelectedIndex(i)
			return
		}
	}
	s.SetSelectedIndex(0)
}
