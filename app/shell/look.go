package shell

import (
	"image/color"
	"strings"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Sentence starts msg with a capital letter (Go errors start in lower case), unless its
// first word is a name that must keep its case: one holding anything but letters
// ("style_a.safetensors", "model_index.json").
func Sentence(msg string) string {
	r, n := utf8.DecodeRuneInString(msg)
	if n == 0 || !unicode.IsLower(r) {
		return msg
	}
	word, _, _ := strings.Cut(msg, " ")
	if strings.ContainsFunc(strings.TrimRight(word, ":,;"), func(r rune) bool { return !unicode.IsLetter(r) }) {
		return msg
	}
	return string(unicode.ToUpper(r)) + msg[n:]
}

// SectionTitle is a small bold heading for a group of controls.
func SectionTitle(s string) *widget.Label {
	return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
}

// Hint is a caption-sized secondary text.
func Hint(s string) *widget.RichText {
	return HintAligned(s, fyne.TextAlignLeading)
}

// HintAligned is a Hint aligned as align.
func HintAligned(s string, align fyne.TextAlign) *widget.RichText {
	rt := widget.NewRichText(&widget.TextSegment{Text: s, Style: widget.RichTextStyle{
		Alignment: align, ColorName: theme.ColorNamePlaceHolder, SizeName: theme.SizeNameCaptionText,
	}})
	rt.Wrapping = fyne.TextWrapWord
	return rt
}

// FieldError is a caption-sized error text, hidden while empty.
func FieldError() *widget.Label {
	l := widget.NewLabel("")
	l.SizeName = theme.SizeNameCaptionText
	l.Importance = widget.DangerImportance
	l.Wrapping = fyne.TextWrapWord
	l.Hide()
	return l
}

// SetFieldError shows msg under a field, or hides the label for "".
func SetFieldError(l *widget.Label, msg string) {
	l.SetText(msg)
	if msg == "" {
		l.Hide()
	} else {
		l.Show()
	}
}

// Spacer returns a fixed vertical gap.
func Spacer(h float32) fyne.CanvasObject {
	r := canvas.NewRectangle(color.Transparent)
	r.SetMinSize(fyne.NewSize(0, h))
	return r
}

// cappedWidth lays out one object at most maxWidth wide, centred, at the full height. Its
// minimum size is the object's, narrowed to maxWidth, so a wide guide never widens the window.
type cappedWidth struct{ maxWidth float32 }

// NewCappedWidth puts obj in a cappedWidth layout.
func NewCappedWidth(maxWidth float32, obj fyne.CanvasObject) *fyne.Container {
	return container.New(cappedWidth{maxWidth}, obj)
}

func (l cappedWidth) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	w := min(size.Width, l.maxWidth)
	for _, o := range objs {
		o.Resize(fyne.NewSize(w, size.Height))
		o.Move(fyne.NewPos((size.Width-w)/2, 0))
	}
}

func (l cappedWidth) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		if o.Visible() {
			s = s.Max(o.MinSize())
		}
	}
	s.Width = min(s.Width, l.maxWidth)
	return s
}
