package jobqueue

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// caption is a caption-sized secondary text, wrapped, as the window's other hints.
func caption(s string, align fyne.TextAlign) *widget.RichText {
	rt := widget.NewRichText(&widget.TextSegment{Text: s, Style: widget.RichTextStyle{
		Alignment: align, ColorName: theme.ColorNamePlaceHolder, SizeName: theme.SizeNameCaptionText,
	}})
	rt.Wrapping = fyne.TextWrapWord
	return rt
}
