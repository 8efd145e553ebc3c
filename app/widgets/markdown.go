package widgets

import (
	"strings"

	"fyne.io/fyne/v2/widget"
)

// SetMarkdown shows the markdown md in rt, without the space Fyne's parser puts before
// inline code after an opening bracket or quote: "(`model_index.json`)" showed as
// "( model_index.json)" (issue 28).
func SetMarkdown(rt *widget.RichText, md string) {
	rt.ParseMarkdown(md)
	tidyCodeSpaces(rt.Segments)
	rt.Refresh()
}

// Markdown is a RichText showing md (see SetMarkdown).
func Markdown(md string) *widget.RichText {
	rt := widget.NewRichText()
	SetMarkdown(rt, md)
	return rt
}

// tidyCodeSpaces removes the stray space before each inline code segment that follows an
// opening bracket or quote, in segs and the paragraphs among them.
func tidyCodeSpaces(segs []widget.RichTextSegment) {
	for i, s := range segs {
		if p, ok := s.(*widget.ParagraphSegment); ok {
			tidyCodeSpaces(p.Texts)
			continue
		}
		t, ok := s.(*widget.TextSegment)
		if !ok || i+1 >= len(segs) {
			continue
		}
		next, ok := segs[i+1].(*widget.TextSegment)
		if !ok || next.Style != widget.RichTextStyleCodeInline {
			continue
		}
		if trimmed := strings.TrimSuffix(t.Text, " "); trimmed != t.Text && strings.ContainsAny(trimmed[max(len(trimmed)-1, 0):], "([{/'\"") {
			t.Text = trimmed
		}
	}
}
